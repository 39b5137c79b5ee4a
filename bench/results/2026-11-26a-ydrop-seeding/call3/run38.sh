#!/usr/bin/env bash
# device call 3 (session 19): H. pylori's waits traced with 0005 (lastz-trace: patches 0001-0005 plus per take
# "XXT ms-since-loop-start anchor1 reversed finished-already µs-queueing-while-waiting µs-waited rows own", per call
# the loop ran itself "XXS ms anchor1 reversed kind µs")
set -u
C=$(dirname "$(realpath "$0")"); O=${OUT:-/tmp/o}; mkdir -p $O; W=/tmp/w38; mkdir -p $W; d=$C/data
zcat $d/hpylori_G27.fasta.gz > $W/g27.fa; zcat $d/hpylori_SJM180.fasta.gz > $W/sjm.fa
for k in 1 2; do
  XXT=1 WARPALIGN_STATS=1 $C/tools/lastz-trace $W/g27.fa $W/sjm.fa > $W/hp.out 2> $O/trace$k.txt
  echo "trace $k: output $(md5sum < $W/hp.out | cut -c1-32)"; grep warpalign $O/trace$k.txt
done
