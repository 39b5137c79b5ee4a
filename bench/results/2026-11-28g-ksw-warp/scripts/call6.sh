#!/usr/bin/env bash
# call 6: the one-warp form takes the windows of 128, 256 and 512 cells in one launch (the kernel picks each
# job's register count; one launch group instead of three). minimap2-prev/ksw-prev: 393bfad.
# GPU tests (x3 cases), memcheck; bench/ksw (UL, HiFi, splice); -c end to end in alternation, traced.
exec > >(tee "$OUT/log.txt") 2>&1
B=$PWD/target/benchcarry D=$B/data w=/tmp/w ec=$B/data/ecoli_K12_MG1655.fasta.gz
mkdir -p $w
t0=$SECONDS
$B/bin/gen reads --ref $ec --seed 7 --profile $D/ecoli_ultralong_R9_nanotest.fastq.gz --bases 16000000 -o $w/r16.fq > /dev/null 2>&1 &
p1=$!
$B/bin/gen reads --ref $ec --seed 7 --profile $D/ecoli_ultralong_R9_nanotest.fastq.gz --bases 200000000 -o $w/r200.fq > /dev/null 2>&1 &
p2=$!
$B/bin/gen reads --ref $ec --seed 7 --mode hifi --profile $D/ecoli_sequel_clr_subreads.fastq.gz --len 15000 --bases 100000000 -o $w/hifi.fq > /dev/null 2>&1 &
p3=$!
$B/bin/gen reads --ref $ec --seed 7 --spliced --genes 2000 --profile $D/ecoli_R9_medaka_test_reads.fasta.gz --bases 40000000 -o $w/splice.fq > /dev/null 2>&1 &
p4=$!
$B/bin/gen reads --ref $ec --seed 7 --spliced --genes 2000 --profile $D/ecoli_R9_medaka_test_reads.fasta.gz --bases 8000000 -o $w/splice8.fq > /dev/null 2>&1 &
p5=$!
$B/bin/gen reads --ref $ec --seed 7 --mode hifi --profile $D/ecoli_sequel_clr_subreads.fastq.gz --len 15000 --bases 16000000 -o $w/hifi16.fq > /dev/null 2>&1 &
p6=$!
wait $p1 $p5 $p6
WARPALIGN_KSW_DUMP=$w/hifi.dump $B/tools/minimap2 -t16 -x map-hifi -c $ec $w/hifi16.fq > /dev/null 2> /dev/null
WARPALIGN_KSW_DUMP=$w/ul.dump $B/tools/minimap2 -t16 -x map-ont -c $ec $w/r16.fq > /dev/null 2> /dev/null
WARPALIGN_KSW_DUMP=$w/splice.dump $B/tools/minimap2 -t16 -x splice -c $ec $w/splice8.fq > /dev/null 2> /dev/null
wait $p2 $p3 $p4
echo "inputs $((SECONDS - t0)) s"
echo "== ksw tests x3 cases"
KSW_GPU_CASES=90000 KSW_GPU_TRAP_CASES=9000 KSW_GPU_EXTS2_CASES=60000 KSW_GPU_EXTS2_CALL_CASES=15000 \
  TOOLS=$B/tools WARPALIGN_DATA=$D WARPALIGN_BACKEND=gpu timeout 240 $B/bin/ksw-tests --test-threads=4 gpu:: 2>&1 | grep -E "^test |test result|skipped|panicked|FAILED|differ" | tail -10
echo "== memcheck"
KSW_GPU_CASES=3000 KSW_GPU_TRAP_CASES=200 TOOLS=$B/tools WARPALIGN_DATA=$D WARPALIGN_BACKEND=gpu timeout 200 compute-sanitizer --tool memcheck $B/bin/ksw-tests --test-threads=1 gpu::gpu_equals_twin gpu::engine_batch > $w/san.txt 2>&1
echo "memcheck rc $?"; grep -E "ERROR SUMMARY|test result" $w/san.txt | head -3
echo "tests $((SECONDS - t0)) s"
for k in ksw-prev ksw ksw-prev ksw; do
  echo "== ul $k"
  $B/bin/$k --reps 3 --sample 100 $w/ul.dump 2>&1 | grep -E "\(d\)|mismatch|differ|rror"
done
for k in ksw-prev ksw ksw-prev ksw; do
  echo "== hifi $k"
  $B/bin/$k --reps 3 --sample 100 $w/hifi.dump 2>&1 | grep -E "\(d\)|mismatch|differ|rror"
done
for k in ksw-prev ksw; do
  echo "== splice $k"
  $B/bin/$k --reps 3 --sample 100 $w/splice.dump 2>&1 | grep -E "\(d\)|mismatch|differ|rror"
done
WARPALIGN_KSW_GPU_PROFILE=1 $B/bin/ksw --reps 1 --sample 100 $w/ul.dump > $OUT/prof-ul.txt 2>&1
rt() { sed -n 's/.*Real time: \([0-9.]*\) sec; CPU: \([0-9.]*\) sec; Peak RSS: \([0-9.]*\) GB.*/\1 s, CPU \2 s, RSS \3 GB/p' "$1"; }
gunzip -c $ec | head -c 100000 > $w/warm.fa
WARPALIGN_BACKEND=gpu $B/tools/minimap2 -t16 -x map-ont -c $w/warm.fa $w/warm.fa > /dev/null 2>&1
cmpr() { # LABEL QUERY ARGS...
  local label=$1 q=$2; shift 2
  $B/tools/minimap2-ref -t16 "$@" $ec $q > $w/ref.out 2> $w/ref.err
  echo "$label ref: $(rt $w/ref.err)"
  for t in minimap2-prev minimap2 minimap2-prev minimap2; do
    $B/tools/$t -t16 "$@" $ec $q > $w/new.out 2> $w/new.err
    cmp -s $w/ref.out $w/new.out && s=identical || s=DIFFERENT
    echo "$label $t: $(rt $w/new.err) $s"
  done
}
cmpr "ecoli 200Mb -c" $w/r200.fq -x map-ont -c
cmpr "hifi 100Mb -c" $w/hifi.fq -x map-hifi -c
cmpr "splice 40Mb -c" $w/splice.fq -x splice -c
WARPALIGN_TRACE=1 WARPALIGN_KSW_GPU_PROFILE=1 $B/tools/minimap2 -t16 -x map-ont -c $ec $w/r200.fq > /dev/null 2> $OUT/trace-ecoli.err
echo "all $((SECONDS - t0)) s"
