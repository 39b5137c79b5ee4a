#!/usr/bin/env bash
# device call: reference vs rebuilt (main's defaults) on H. pylori and the larger pair, with the loop split
set -u
C=$(dirname "$(realpath "$0")"); O=${OUT:-/tmp/o}; mkdir -p $O; W=/tmp/w4; mkdir -p $W; d=$C/data
$C/bin/gen genome --seed 7 --size 10500000 -o $W/genome.fa $d/ecoli_K12_MG1655.fasta.gz $d/hpylori_G27.fasta.gz $d/hpylori_SJM180.fasta.gz $d/B_anthracis_Mslice.fasta.gz $d/D_melanogaster_2Rslice.fasta.gz > /dev/null 2>&1
$C/bin/gen pair --seed 7 --divergence 0.10 -o $W/genome_div.fa $W/genome.fa > /dev/null 2>&1
$C/bin/gen split --pieces 8 -o $W/genome $W/genome.fa > /dev/null 2>&1
zcat $d/hpylori_G27.fasta.gz > $W/g27.fa; zcat $d/hpylori_SJM180.fasta.gz > $W/sjm.fa
for run in "hp $W/g27.fa $W/sjm.fa" "large $W/genome.1.fa[multiple] $W/genome_div.fa --format=maf"; do
  set -- $run; n=$1; shift
  for t in lastz-ref lastz; do
    s=$(date +%s.%N); WARPALIGN_STATS=1 timeout 100 $C/tools/$t "$@" > $W/$n-$t.out 2> $W/$n-$t.err
    echo "$n $t: rc $? $(awk -v a=$s -v b=$(date +%s.%N) 'BEGIN{print b-a}') s"; grep warpalign $W/$n-$t.err | sed 's/^/    /'
  done
  cmp $W/$n-lastz-ref.out $W/$n-lastz.out && echo "$n: identical"
done 2>&1 | tee $O/final.txt
