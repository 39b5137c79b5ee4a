#!/usr/bin/env bash
# device calls 6-7 (session 18, at c80655e): H. pylori's loop with other deferral bands (an anchor within DIAG
# diagonals and POS positions of an earlier queued one waits for it; WARPALIGN's default was then 2000,100000;
# -1,-1 defers none), on an experiment build reading them from WA_DEFER=DIAG,POS (lastz-defer), interleaved,
# 3 runs each. Call 6: the default BANDS; call 7: BANDS="2000,100000 2000,10000 2000,5000 4000,10000
# 1000,10000 2000,20000"
set -u
BANDS=${BANDS:-"2000,100000 -1,-1 500,20000 2000,10000"}
C=$(dirname "$(realpath "$0")"); O=${OUT:-/tmp/o}; mkdir -p $O; W=/tmp/w29; mkdir -p $W; d=$C/data
zcat $d/hpylori_G27.fasta.gz > $W/g27.fa; zcat $d/hpylori_SJM180.fasta.gz > $W/sjm.fa
for k in 1 2 3; do
  for v in $BANDS; do
    s=$(date +%s.%N); WA_DEFER=$v WARPALIGN_STATS=1 $C/tools/lastz-defer $W/g27.fa $W/sjm.fa > $W/hp.out 2> $W/hp.err
    echo "$v run $k: rc $? $(awk -v a=$s -v b=$(date +%s.%N) 'BEGIN{print b-a}') s; output $(md5sum < $W/hp.out | cut -c1-32)"; grep -E "queued ahead|anchor loops|ran itself|bookkeeping" $W/hp.err | sed 's/^/    /'
  done
done 2>&1 | tee $O/defer.txt
