#!/usr/bin/env bash
# device call: ydrop_fuzz vector on the device CPU (AVX-512 and AVX2 vs the spec), bench/lastz, and H. pylori's
# loop split
set -u
C=$(dirname "$(realpath "$0")"); O=${OUT:-/tmp/o}; mkdir -p $O; W=/tmp/w7; mkdir -p $W; d=$C/data
{ $C/bin/ydrop_fuzz 1000000 2201 constrained vector; $C/bin/ydrop_fuzz 1000000 2202 vector; } 2>&1 | tee $O/fuzz-vector.txt
OUT=$O/bench bench/lastz $C > /dev/null 2>&1; cat $O/bench/results.md
zcat $d/hpylori_G27.fasta.gz > $W/g27.fa; zcat $d/hpylori_SJM180.fasta.gz > $W/sjm.fa
for k in 1 2; do
  s=$(date +%s.%N); WARPALIGN_STATS=1 $C/tools/lastz $W/g27.fa $W/sjm.fa > $W/hp.out 2> $W/hp.err
  echo "hp lastz: rc $? $(awk -v a=$s -v b=$(date +%s.%N) 'BEGIN{print b-a}') s"; grep warpalign $W/hp.err | sed 's/^/    /'
done 2>&1 | tee $O/hp-stats.txt
