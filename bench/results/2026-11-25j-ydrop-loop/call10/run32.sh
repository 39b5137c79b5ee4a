#!/usr/bin/env bash
# device call 10 (session 18): main's code (anchors wait behind a queued one within 2000 diagonals and 50,000
# positions): bench/lastz; H. pylori's loop split (4 runs)
set -u
C=$(dirname "$(realpath "$0")"); O=${OUT:-/tmp/o}; mkdir -p $O; W=/tmp/w32; mkdir -p $W; d=$C/data
OUT=$O/bench bench/lastz $C > /dev/null 2>&1; cat $O/bench/results.md
zcat $d/hpylori_G27.fasta.gz > $W/g27.fa; zcat $d/hpylori_SJM180.fasta.gz > $W/sjm.fa
for k in 1 2 3 4; do
  s=$(date +%s.%N); WARPALIGN_STATS=1 $C/tools/lastz $W/g27.fa $W/sjm.fa > $W/hp.out 2> $W/hp.err
  echo "run $k: rc $? $(awk -v a=$s -v b=$(date +%s.%N) 'BEGIN{print b-a}') s; output $(md5sum < $W/hp.out | cut -c1-32)"; grep warpalign $W/hp.err | sed 's/^/    /'
done 2>&1 | tee $O/stats.txt
