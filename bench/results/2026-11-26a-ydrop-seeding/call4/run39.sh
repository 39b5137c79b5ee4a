#!/usr/bin/env bash
# device call 4 (session 19): 0005 variants: candidates queued while LASTZ searches are dropped behind a
# higher-scoring one within 50000 positions and within 20 / 100 / 2000 diagonals (lastz-e20/e100/e2000; 2000 is
# call 2's build); H. pylori: the timed reference 3 runs, each variant 4 runs, interleaved
set -u
C=$(dirname "$(realpath "$0")"); O=${OUT:-/tmp/o}; mkdir -p $O; W=/tmp/w39; mkdir -p $W; d=$C/data
zcat $d/hpylori_G27.fasta.gz > $W/g27.fa; zcat $d/hpylori_SJM180.fasta.gz > $W/sjm.fa
for k in 1 2 3 4; do
  if [ $k -le 3 ]; then
    /usr/bin/time -f "%e s wall" $C/tools/lastz-ref-timed $W/g27.fa $W/sjm.fa > $W/ref.out 2> $W/ref.err
    echo "reference run $k: gapped $(awk -F: '/^total time in (above_below|left_right|ydrop_align)\(\)/ { s += $2 } END { printf "%.3f", s }' $W/ref.err) s; $(tail -1 $W/ref.err); output $(md5sum < $W/ref.out | cut -c1-32)"
  fi
  for v in 20 100 2000; do
    WARPALIGN_STATS=1 /usr/bin/time -f "%e s wall" $C/tools/lastz-e$v $W/g27.fa $W/sjm.fa > $W/new.out 2> $W/new.err
    echo "e$v run $k: loop $(sed -n 's/^warpalign: \([0-9.]*\) s in gapped.*/\1/p' $W/new.err) s; $(tail -1 $W/new.err); output $(md5sum < $W/new.out | cut -c1-32)"
    grep warpalign $W/new.err | sed 's/^/    /'
  done
done 2>&1 | tee $O/variants.txt
