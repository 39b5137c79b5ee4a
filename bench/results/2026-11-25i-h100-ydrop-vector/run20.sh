#!/usr/bin/env bash
# device call: bench/lastz, then H. pylori's and the larger pair's loop split (rebuilt; H. pylori 3 times)
set -u
C=$(dirname "$(realpath "$0")"); O=${OUT:-/tmp/o}; mkdir -p $O; W=/tmp/w9; mkdir -p $W; d=$C/data
OUT=$O/bench bench/lastz $C > /dev/null 2>&1; cat $O/bench/results.md
zcat $d/hpylori_G27.fasta.gz > $W/g27.fa; zcat $d/hpylori_SJM180.fasta.gz > $W/sjm.fa
$C/bin/gen genome --seed 7 --size 10500000 -o $W/genome.fa $d/ecoli_K12_MG1655.fasta.gz $d/hpylori_G27.fasta.gz $d/hpylori_SJM180.fasta.gz $d/B_anthracis_Mslice.fasta.gz $d/D_melanogaster_2Rslice.fasta.gz > /dev/null 2>&1
$C/bin/gen pair --seed 7 --divergence 0.10 -o $W/genome_div.fa $W/genome.fa > /dev/null 2>&1
$C/bin/gen split --pieces 8 -o $W/genome $W/genome.fa > /dev/null 2>&1
for run in "hp $W/g27.fa $W/sjm.fa" "hp $W/g27.fa $W/sjm.fa" "hp $W/g27.fa $W/sjm.fa" "large $W/genome.1.fa[multiple] $W/genome_div.fa --format=maf"; do
  set -- $run; n=$1; shift
  s=$(date +%s.%N); WARPALIGN_STATS=1 $C/tools/lastz "$@" > $W/$n.out 2> $W/$n.err
  echo "$n lastz: rc $? $(awk -v a=$s -v b=$(date +%s.%N) 'BEGIN{print b-a}') s; output $(md5sum < $W/$n.out | cut -c1-32)"; grep warpalign $W/$n.err | sed 's/^/    /'
done 2>&1 | tee $O/stats.txt
