#!/usr/bin/env bash
# device call 1 (session 19): main at 895207b (caller adopts pre-touched scratch); H. pylori's gapped stage,
# medians: the timed reference 5 runs, the rebuilt LASTZ 7 runs, interleaved
set -u
C=$(dirname "$(realpath "$0")"); O=${OUT:-/tmp/o}; mkdir -p $O; W=/tmp/w36; mkdir -p $W; d=$C/data
lscpu | grep -E "Model name|^CPU\(s\)|Thread|MHz" | tee $O/cpu.txt
zcat $d/hpylori_G27.fasta.gz > $W/g27.fa; zcat $d/hpylori_SJM180.fasta.gz > $W/sjm.fa
for k in 1 2 3 4 5 6 7; do
  if [ $k -le 5 ]; then
    /usr/bin/time -f "%e s wall" $C/tools/lastz-ref-timed $W/g27.fa $W/sjm.fa > $W/ref.out 2> $W/ref.err
    echo "reference run $k: gapped $(awk -F: '/^total time in (above_below|left_right|ydrop_align)\(\)/ { s += $2 } END { printf "%.3f", s }' $W/ref.err) s; $(tail -1 $W/ref.err); output $(md5sum < $W/ref.out | cut -c1-32)"
  fi
  WARPALIGN_STATS=1 /usr/bin/time -f "%e s wall" $C/tools/lastz $W/g27.fa $W/sjm.fa > $W/new.out 2> $W/new.err
  echo "rebuilt run $k: loop $(sed -n 's/^warpalign: \([0-9.]*\) s in gapped.*/\1/p' $W/new.err) s; $(tail -1 $W/new.err); output $(md5sum < $W/new.out | cut -c1-32)"
  grep warpalign $W/new.err | sed 's/^/    /'
done 2>&1 | tee $O/medians.txt
