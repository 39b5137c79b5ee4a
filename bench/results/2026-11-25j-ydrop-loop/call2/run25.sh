#!/usr/bin/env bash
# device call 2 (session 18): H. pylori's waits traced (lastz-trace, an instrumented build: per take
# "XXT anchor-index anchor1 reversed finished-already µs-from-queueing-to-take µs-waited rows own", per call
# the loop ran itself "XXS anchor1 reversed kind"); anchors ahead 255/128/64/32; spin on/off
set -u
C=$(dirname "$(realpath "$0")"); O=${OUT:-/tmp/o}; mkdir -p $O; W=/tmp/w25; mkdir -p $W; d=$C/data
zcat $d/hpylori_G27.fasta.gz > $W/g27.fa; zcat $d/hpylori_SJM180.fasta.gz > $W/sjm.fa
XXT=1 WARPALIGN_STATS=1 $C/tools/lastz-trace $W/g27.fa $W/sjm.fa > $W/hp.out 2> $O/trace.txt
for k in 1 2; do
  for v in 255 128 64 32 nospin; do
    e="WARPALIGN_YDROP_AHEAD=$v"; [ $v = nospin ] && e="WARPALIGN_YDROP_SPIN=0"
    s=$(date +%s.%N); env $e WARPALIGN_STATS=1 $C/tools/lastz $W/g27.fa $W/sjm.fa > $W/hp.out 2> $W/hp.err
    echo "$v run $k: rc $? $(awk -v a=$s -v b=$(date +%s.%N) 'BEGIN{print b-a}') s; output $(md5sum < $W/hp.out | cut -c1-32)"; grep -E "anchor loops|ran itself|bookkeeping" $W/hp.err | sed 's/^/    /'
  done
done 2>&1 | tee $O/hp-ahead.txt
