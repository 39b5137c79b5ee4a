#!/usr/bin/env bash
# device call 1 (session 18): bench/lastz with the timed reference; H. pylori's loop: the new build
# (queueing while waiting + spinning waits), the same with WARPALIGN_YDROP_SPIN=0, and without queueing
# while waiting (lastz-nofill), interleaved, 3 runs each. (Spinning was not kept: no gain measured.)
set -u
C=$(dirname "$(realpath "$0")"); O=${OUT:-/tmp/o}; mkdir -p $O; W=/tmp/w24; mkdir -p $W; d=$C/data
lscpu | grep -E "Model name|^CPU\(s\)" > $O/cpu.txt
OUT=$O/bench bench/lastz $C > /dev/null 2>&1; cat $O/bench/results.md
zcat $d/hpylori_G27.fasta.gz > $W/g27.fa; zcat $d/hpylori_SJM180.fasta.gz > $W/sjm.fa
for k in 1 2 3; do
  for v in new nospin nofill; do
    b=$C/tools/lastz; e=""
    [ $v = nospin ] && e="WARPALIGN_YDROP_SPIN=0"; [ $v = nofill ] && b=$C/tools/lastz-nofill
    s=$(date +%s.%N); env $e WARPALIGN_STATS=1 $b $W/g27.fa $W/sjm.fa > $W/hp.out 2> $W/hp.err
    echo "$v run $k: rc $? $(awk -v a=$s -v b=$(date +%s.%N) 'BEGIN{print b-a}') s; output $(md5sum < $W/hp.out | cut -c1-32)"; grep -E "anchor loops|ran itself|bookkeeping" $W/hp.err | sed 's/^/    /'
  done
done 2>&1 | tee $O/hp-ab.txt
