#!/usr/bin/env bash
# device call 11 (session 18): H. pylori's gapped stage, medians: the timed reference (upstream's own timers:
# above_below + left_right + ydrop_align) 3 runs, the rebuilt LASTZ 5 runs (WARPALIGN_STATS=1 loop), interleaved
set -u
C=$(dirname "$(realpath "$0")"); O=${OUT:-/tmp/o}; mkdir -p $O; W=/tmp/w33; mkdir -p $W; d=$C/data
zcat $d/hpylori_G27.fasta.gz > $W/g27.fa; zcat $d/hpylori_SJM180.fasta.gz > $W/sjm.fa
for k in 1 2 3 4 5; do
  if [ $k -le 3 ]; then
    $C/tools/lastz-ref-timed $W/g27.fa $W/sjm.fa > $W/ref.out 2> $W/ref.err
    echo "reference run $k: gapped $(awk -F: '/^total time in (above_below|left_right|ydrop_align)\(\)/ { s += $2 } END { printf "%.3f", s }' $W/ref.err) s; output $(md5sum < $W/ref.out | cut -c1-32)"
  fi
  WARPALIGN_STATS=1 $C/tools/lastz $W/g27.fa $W/sjm.fa > $W/new.out 2> $W/new.err
  echo "rebuilt run $k: loop $(sed -n 's/^warpalign: \([0-9.]*\) s in gapped.*/\1/p' $W/new.err) s; output $(md5sum < $W/new.out | cut -c1-32)"
done 2>&1 | tee $O/medians.txt
