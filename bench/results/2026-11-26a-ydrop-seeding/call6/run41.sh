#!/usr/bin/env bash
# device call 6 (session 19): main at dec8f72 (0005 plus compact envelopes of runs without constraints);
# the GPU y-drop tests (random and long jobs; envelopes compared with the twin's); H. pylori's gapped stage,
# medians: the timed reference 5 runs, the rebuilt LASTZ 7 runs and 3 without 0005's jobs
# (WARPALIGN_YDROP_EARLY=0), interleaved; one run replaying every result (WARPALIGN_YDROP_VERIFY=1), one with
# the GPU thread (WARPALIGN_BACKEND=gpu); bench/lastz
set -u
C=$(dirname "$(realpath "$0")"); O=${OUT:-/tmp/o}; mkdir -p $O; W=/tmp/w41; mkdir -p $W; d=$C/data
timeout 120 $C/bin/ydrop_gpu_test gpu_equals_twin_random gpu_equals_twin_mixed_and_long kernel_model_equals_twin \
  ydrop_kernel_compiles_for_sm90 2>&1 | tail -n 12 | tee $O/gpu-tests.txt
zcat $d/hpylori_G27.fasta.gz > $W/g27.fa; zcat $d/hpylori_SJM180.fasta.gz > $W/sjm.fa
new() { # label, env...
  local l=$1; shift
  env "$@" WARPALIGN_STATS=1 /usr/bin/time -f "%e s wall, %M KB" $C/tools/lastz $W/g27.fa $W/sjm.fa > $W/new.out 2> $W/new.err
  echo "rebuilt $l: loop $(sed -n 's/^warpalign: \([0-9.]*\) s in gapped.*/\1/p' $W/new.err) s; $(tail -1 $W/new.err); output $(md5sum < $W/new.out | cut -c1-32)"
  grep warpalign $W/new.err | sed 's/^/    /'
}
for k in 1 2 3 4 5 6 7; do
  if [ $k -le 5 ]; then
    /usr/bin/time -f "%e s wall, %M KB" $C/tools/lastz-ref-timed $W/g27.fa $W/sjm.fa > $W/ref.out 2> $W/ref.err
    echo "reference run $k: gapped $(awk -F: '/^total time in (above_below|left_right|ydrop_align)\(\)/ { s += $2 } END { printf "%.3f", s }' $W/ref.err) s; $(tail -1 $W/ref.err); output $(md5sum < $W/ref.out | cut -c1-32)"
  fi
  new "run $k"
  [ $((k % 2)) -eq 0 ] && new "without early run $((k/2))" WARPALIGN_YDROP_EARLY=0
done 2>&1 | tee $O/medians.txt
new "verify" WARPALIGN_YDROP_VERIFY=1 2>&1 | tee $O/verify.txt
new "gpu backend" WARPALIGN_BACKEND=gpu 2>&1 | tee -a $O/verify.txt
OUT=$O/bench bench/lastz $C > /dev/null 2>&1; cat $O/bench/results.md
