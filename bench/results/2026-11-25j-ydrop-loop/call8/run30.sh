#!/usr/bin/env bash
# device call 8 (session 18): anchors wait behind a queued one within 2000 diagonals and 20,000 positions
# (was 100,000): bench/lastz; H. pylori's loop split (4 runs); the pool's GPU thread (WARPALIGN_BACKEND=gpu)
# on H. pylori and B. anthracis, output compared with the CPU run's
set -u
C=$(dirname "$(realpath "$0")"); O=${OUT:-/tmp/o}; mkdir -p $O; W=/tmp/w30; mkdir -p $W; d=$C/data
OUT=$O/bench bench/lastz $C > /dev/null 2>&1; cat $O/bench/results.md
zcat $d/hpylori_G27.fasta.gz > $W/g27.fa; zcat $d/hpylori_SJM180.fasta.gz > $W/sjm.fa
for k in 1 2 3 4; do
  s=$(date +%s.%N); WARPALIGN_STATS=1 $C/tools/lastz $W/g27.fa $W/sjm.fa > $W/hp.out 2> $W/hp.err
  echo "run $k: rc $? $(awk -v a=$s -v b=$(date +%s.%N) 'BEGIN{print b-a}') s; output $(md5sum < $W/hp.out | cut -c1-32)"; grep warpalign $W/hp.err | sed 's/^/    /'
done 2>&1 | tee $O/stats.txt
zcat $d/B_anthracis_Mslice.fasta.gz > $W/ba.fa; zcat $d/B_anthracis_contigs.fasta.gz > $W/bac.fa
{ for p in "g27.fa sjm.fa" "ba.fa bac.fa"; do
    set -- $p
    $C/tools/lastz $W/$1 $W/$2 > $W/cpu.out 2>/dev/null; rc1=$?
    WARPALIGN_BACKEND=gpu WARPALIGN_STATS=1 $C/tools/lastz $W/$1 $W/$2 > $W/gpu.out 2> $W/gpu.err; rc2=$?
    cmp -s $W/cpu.out $W/gpu.out && v=identical || v=DIFFERENT
    echo "$1 vs $2: cpu rc $rc1, gpu rc $rc2: $v"; grep -E "WARNING|anchor loops" $W/gpu.err | sed 's/^/    /'
  done; } 2>&1 | tee $O/gpu.txt
