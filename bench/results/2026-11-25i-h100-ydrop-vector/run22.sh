#!/usr/bin/env bash
# device call: the one-chunk-ahead sweep: ydrop_fuzz vector, sweep speed on one thread, bench/lastz, and
# H. pylori's loop split (3 runs)
set -u
C=$(dirname "$(realpath "$0")"); O=${OUT:-/tmp/o}; mkdir -p $O; W=/tmp/w11; mkdir -p $W; d=$C/data
{ $C/bin/ydrop_fuzz 1000000 2701 constrained vector; $C/bin/ydrop_fuzz 1000000 2702 vector; } 2>&1 | tee $O/fuzz-vector.txt
$C/bin/ydrop --dump $d/hp-free.dump.gz --one-thread --reps 2 2>&1 | grep -E "calls|\(a\)|\(b\)|envelopes|mismatches" | tee $O/ydrop-sweeps.txt
OUT=$O/bench bench/lastz $C > /dev/null 2>&1; cat $O/bench/results.md
zcat $d/hpylori_G27.fasta.gz > $W/g27.fa; zcat $d/hpylori_SJM180.fasta.gz > $W/sjm.fa
for k in 1 2 3; do
  s=$(date +%s.%N); WARPALIGN_STATS=1 $C/tools/lastz $W/g27.fa $W/sjm.fa > $W/hp.out 2> $W/hp.err
  echo "hp lastz: rc $? $(awk -v a=$s -v b=$(date +%s.%N) 'BEGIN{print b-a}') s; output $(md5sum < $W/hp.out | cut -c1-32)"; grep warpalign $W/hp.err | sed 's/^/    /'
done 2>&1 | tee $O/stats.txt
