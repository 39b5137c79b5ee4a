#!/usr/bin/env bash
# device call 12 (session 18): the traceback scratch reserved whole (LASTZ's default 80 MiB of address space)
# before the first call: the largest H. pylori calls (fresh threads, warmed); H. pylori's gapped stage, medians:
# the timed reference 3 runs, the rebuilt LASTZ 5 runs, interleaved; bench/lastz
set -u
C=$(dirname "$(realpath "$0")"); O=${OUT:-/tmp/o}; mkdir -p $O; W=/tmp/w34; mkdir -p $W; d=$C/data
$C/bin/ydrop --dump $d/hp-free.dump.gz --largest 15 --reps 1 2>&1 | grep -E "calls|largest|call " | tee $O/ydrop-largest.txt
zcat $d/hpylori_G27.fasta.gz > $W/g27.fa; zcat $d/hpylori_SJM180.fasta.gz > $W/sjm.fa
for k in 1 2 3 4 5; do
  if [ $k -le 3 ]; then
    $C/tools/lastz-ref-timed $W/g27.fa $W/sjm.fa > $W/ref.out 2> $W/ref.err
    echo "reference run $k: gapped $(awk -F: '/^total time in (above_below|left_right|ydrop_align)\(\)/ { s += $2 } END { printf "%.3f", s }' $W/ref.err) s; output $(md5sum < $W/ref.out | cut -c1-32)"
  fi
  WARPALIGN_STATS=1 $C/tools/lastz $W/g27.fa $W/sjm.fa > $W/new.out 2> $W/new.err
  echo "rebuilt run $k: loop $(sed -n 's/^warpalign: \([0-9.]*\) s in gapped.*/\1/p' $W/new.err) s; output $(md5sum < $W/new.out | cut -c1-32)"
  grep warpalign $W/new.err | sed 's/^/    /'
done 2>&1 | tee $O/medians.txt
OUT=$O/bench bench/lastz $C > /dev/null 2>&1; cat $O/bench/results.md
