#!/usr/bin/env bash
# call 1: the ksw DP's one-warp form (band window in registers) against the block form
# (WARPALIGN_KSW_GPU_WARP=0): the ksw GPU tests (x3 cases) and memcheck on it, bench/ksw on jobs dumped from
# real-profile runs with per-launch profiles, then -c end to end.
exec > >(tee "$OUT/log.txt") 2>&1
B=$PWD/target/benchcarry D=$B/data w=/tmp/w ec=$B/data/ecoli_K12_MG1655.fasta.gz
mkdir -p $w
t0=$SECONDS
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
$B/bin/gen reads --ref $ec --seed 7 --mode hifi --profile $D/ecoli_sequel_clr_subreads.fastq.gz --len 15000 --bases 16000000 -o $w/hifi16.fq > /dev/null 2>&1
$B/bin/gen reads --ref $ec --seed 7 --profile $D/ecoli_ultralong_R9_nanotest.fastq.gz --bases 16000000 -o $w/r16.fq > /dev/null 2>&1
$B/bin/gen reads --ref $ec --seed 7 --spliced --genes 2000 --profile $D/ecoli_R9_medaka_test_reads.fasta.gz --bases 8000000 -o $w/splice8.fq > /dev/null 2>&1
WARPALIGN_KSW_DUMP=$w/ul.dump $B/tools/minimap2 -t16 -x map-ont -c $ec $w/r16.fq > /dev/null 2> /dev/null &
p1=$!
WARPALIGN_KSW_DUMP=$w/hifi.dump $B/tools/minimap2 -t16 -x map-hifi -c $ec $w/hifi16.fq > /dev/null 2> /dev/null &
p2=$!
WARPALIGN_KSW_DUMP=$w/splice.dump $B/tools/minimap2 -t16 -x splice -c $ec $w/splice8.fq > /dev/null 2> /dev/null &
p3=$!
wait $p1 $p2 $p3
ls -la $w/*.dump
echo "inputs $((SECONDS - t0)) s"
echo "== ksw tests x3 cases, warp form"
KSW_GPU_CASES=90000 KSW_GPU_TRAP_CASES=9000 KSW_GPU_EXTS2_CASES=60000 KSW_GPU_EXTS2_CALL_CASES=15000 \
  TOOLS=$B/tools WARPALIGN_DATA=$D WARPALIGN_BACKEND=gpu timeout 240 $B/bin/ksw-tests --test-threads=4 gpu:: lanes 2>&1 | grep -E "^test |test result|skipped|panicked|FAILED|differ" | tail -14
echo "tests $((SECONDS - t0)) s"
for d in ul hifi splice; do
  for wp in 0 1; do
    echo "== $d warp $wp"
    WARPALIGN_KSW_GPU_WARP=$wp $B/bin/ksw --reps 3 --sample 300 $w/$d.dump 2>&1 | grep -E "\(d\)|\(a\)|mismatch|differ"
  done
done
for wp in 0 1; do
  WARPALIGN_KSW_GPU_PROFILE=1 WARPALIGN_KSW_GPU_WARP=$wp $B/bin/ksw --reps 1 --sample 100 $w/ul.dump > $OUT/prof-ul-warp$wp.txt 2>&1
done
echo "bench $((SECONDS - t0)) s"
echo "== memcheck (warp form)"
KSW_GPU_CASES=3000 KSW_GPU_TRAP_CASES=200 KSW_GPU_EXTS2_CASES=2000 KSW_GPU_EXTS2_CALL_CASES=500 KSW_GPU_EXTS2_WIDE_CASES=0 \
  TOOLS=$B/tools WARPALIGN_DATA=$D WARPALIGN_BACKEND=gpu timeout 200 compute-sanitizer --tool memcheck $B/bin/ksw-tests --test-threads=1 gpu::gpu_equals_twin > $w/san.txt 2>&1
echo "memcheck rc $?"; grep -E "ERROR SUMMARY|test result|Invalid" $w/san.txt | head -5
echo "memcheck $((SECONDS - t0)) s"
rt() { sed -n 's/.*Real time: \([0-9.]*\) sec; CPU: \([0-9.]*\) sec; Peak RSS: \([0-9.]*\) GB.*/\1 s, CPU \2 s, RSS \3 GB/p' "$1"; }
$B/bin/gen reads --ref $ec --seed 7 --profile $D/ecoli_ultralong_R9_nanotest.fastq.gz --bases 200000000 -o $w/r200.fq > /dev/null 2>&1
$B/bin/gen reads --ref $ec --seed 7 --spliced --genes 2000 --profile $D/ecoli_R9_medaka_test_reads.fasta.gz --bases 40000000 -o $w/splice.fq > /dev/null 2>&1
gunzip -c $ec | head -c 100000 > $w/warm.fa
WARPALIGN_BACKEND=gpu $B/tools/minimap2 -t16 -x map-ont -c $w/warm.fa $w/warm.fa > /dev/null 2>&1
cmpr() { # LABEL QUERY ARGS...
  local label=$1 q=$2; shift 2
  $B/tools/minimap2-ref -t16 "$@" $ec $q > $w/ref.out 2> $w/ref.err
  echo "$label ref: $(rt $w/ref.err)"
  for wp in 1 0 1; do
    WARPALIGN_KSW_GPU_WARP=$wp $B/tools/minimap2 -t16 "$@" $ec $q > $w/new.out 2> $w/new.err
    cmp -s $w/ref.out $w/new.out && s=identical || s=DIFFERENT
    echo "$label warp $wp: $(rt $w/new.err) $s"
  done
}
cmpr "ecoli 200Mb -c" $w/r200.fq -x map-ont -c
cmpr "splice 40Mb -c" $w/splice.fq -x splice -c
echo "all $((SECONDS - t0)) s"
