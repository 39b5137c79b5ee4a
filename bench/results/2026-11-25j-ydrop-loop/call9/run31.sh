#!/usr/bin/env bash
# device call 9 (session 18): deferral bands (WA_DEFER=DIAG,POS on the experiment build lastz-defer) on
# H. pylori and on bench/lastz's larger pair, 2 runs each, interleaved
set -u
C=$(dirname "$(realpath "$0")"); O=${OUT:-/tmp/o}; mkdir -p $O; W=/tmp/w31; mkdir -p $W; d=$C/data; bin=$C/bin
zcat $d/hpylori_G27.fasta.gz > $W/g27.fa; zcat $d/hpylori_SJM180.fasta.gz > $W/sjm.fa
$bin/gen genome --seed 7 --size 10500000 -o $W/genome.fa $d/ecoli_K12_MG1655.fasta.gz $d/hpylori_G27.fasta.gz \
  $d/hpylori_SJM180.fasta.gz $d/B_anthracis_Mslice.fasta.gz $d/D_melanogaster_2Rslice.fasta.gz > /dev/null 2>&1
$bin/gen pair --seed 7 --divergence 0.10 -o $W/genome_div.fa $W/genome.fa > /dev/null 2>&1
$bin/gen split --pieces 8 -o $W/genome $W/genome.fa > /dev/null 2>&1
for k in 1 2; do
  for v in 2000,100000 2000,50000 2000,20000 2000,10000; do
    for p in hp large; do
      if [ $p = hp ]; then args="$W/g27.fa $W/sjm.fa"; else args="$W/genome.1.fa[multiple] $W/genome_div.fa --format=maf"; fi
      s=$(date +%s.%N); WA_DEFER=$v WARPALIGN_STATS=1 $C/tools/lastz-defer $args > $W/o.out 2> $W/o.err
      echo "$p $v run $k: rc $? $(awk -v a=$s -v b=$(date +%s.%N) 'BEGIN{print b-a}') s; output $(md5sum < $W/o.out | cut -c1-32) $(grep -E "anchor loops" $W/o.err | sed 's/warpalign: //')"
    done
  done
done 2>&1 | tee $O/defer-bands.txt
