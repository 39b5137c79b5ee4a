#!/usr/bin/env bash
# call 2: the ksw DP on 4-lane words (kernels/ksw_lanes.cuh) against the cell-by-cell kernel (bin/ksw-old,
# tools/minimap2-prev): bench/ksw on dumped real jobs with 8 and 16 window cells a thread; the ksw tests
# (random and trap families x10); -c end to end
exec > >(tee "$OUT/log.txt") 2>&1
B=$PWD/target/benchcarry D=$B/data w=/tmp/w ec=$B/data/ecoli_K12_MG1655.fasta.gz
mkdir -p $w
t0=$SECONDS
$B/bin/gen reads --ref $ec --seed 7 --mode hifi --profile $D/ecoli_sequel_clr_subreads.fastq.gz --len 15000 --bases 16000000 -o $w/hifi16.fq > /dev/null 2>&1
$B/bin/gen reads --ref $ec --seed 7 --profile $D/ecoli_ultralong_R9_nanotest.fastq.gz --bases 16000000 -o $w/r16.fq > /dev/null 2>&1
$B/bin/gen reads --ref $ec --seed 7 --profile $D/ecoli_ultralong_R9_nanotest.fastq.gz --bases 200000000 -o $w/r200.fq > /dev/null 2>&1
$B/bin/gen reads --ref $ec --seed 7 --mode hifi --profile $D/ecoli_sequel_clr_subreads.fastq.gz --len 15000 --bases 100000000 -o $w/hifi.fq > /dev/null 2>&1
$B/bin/gen reads --ref $ec --seed 7 --spliced --genes 2000 --profile $D/ecoli_R9_medaka_test_reads.fasta.gz --bases 40000000 -o $w/splice.fq > /dev/null 2>&1
$B/bin/gen reads --ref $ec --seed 7 --spliced --genes 2000 --profile $D/ecoli_R9_medaka_test_reads.fasta.gz --bases 8000000 -o $w/splice8.fq > /dev/null 2>&1
echo "inputs $((SECONDS - t0)) s"
WARPALIGN_KSW_DUMP=$w/ul.dump $B/tools/minimap2 -t16 -x map-ont -c $ec $w/r16.fq > /dev/null 2> /dev/null
WARPALIGN_KSW_DUMP=$w/hifi.dump $B/tools/minimap2 -t16 -x map-hifi -c $ec $w/hifi16.fq > /dev/null 2> /dev/null
WARPALIGN_KSW_DUMP=$w/splice.dump $B/tools/minimap2 -t16 -x splice -c $ec $w/splice8.fq > /dev/null 2> /dev/null
ls -la $w/*.dump
for d in ul hifi splice; do
  for k in ksw-old ksw; do
    for c in 8 16; do
      echo "== $d $k cells $c"
      WARPALIGN_KSW_GPU_CELLS=$c $B/bin/$k --reps 3 --sample 300 $w/$d.dump 2>&1 | grep -E "\(d\)|\(a\)|mismatch|differ"
    done
  done
done
echo "== ksw tests (x10 cases), cells 8 then 16"
for c in 8 16; do
  KSW_GPU_CASES=300000 KSW_GPU_TRAP_CASES=30000 KSW_GPU_EXTS2_CASES=200000 KSW_GPU_EXTS2_CALL_CASES=50000 \
  TOOLS=$B/tools WARPALIGN_DATA=$D WARPALIGN_BACKEND=gpu WARPALIGN_KSW_GPU_CELLS=$c timeout 200 $B/bin/ksw-tests --test-threads=4 gpu:: lanes 2>&1 | grep -E "^test |test result|skipped|panicked|FAILED|differ" | tail -12
done
rt() { sed -n 's/.*Real time: \([0-9.]*\) sec; CPU: \([0-9.]*\) sec; Peak RSS: \([0-9.]*\) GB.*/\1 s, CPU \2 s, RSS \3 GB/p' "$1"; }
gunzip -c $ec | head -c 100000 > $w/warm.fa
WARPALIGN_BACKEND=gpu $B/tools/minimap2 -t16 -x map-ont -c $w/warm.fa $w/warm.fa > /dev/null 2>&1
cmpr() { # LABEL QUERY ARGS...
  local label=$1 q=$2; shift 2
  $B/tools/minimap2-ref -t16 "$@" $ec $q > $w/ref.out 2> $w/ref.err
  echo "$label ref: $(rt $w/ref.err)"
  for round in 1 2; do
    for v in "minimap2 8" "minimap2 16" "minimap2-prev 8"; do
      set -- $v "$@"; t=$1 c=$2; shift 2
      WARPALIGN_KSW_GPU_CELLS=$c $B/tools/$t -t16 "$@" $ec $q > $w/new.out 2> $w/new.err
      cmp -s $w/ref.out $w/new.out && s=identical || s=DIFFERENT
      echo "$label round $round $t cells $c: $(rt $w/new.err) $s"
    done
  done
}
cmpr "ecoli 200Mb -c" $w/r200.fq -x map-ont -c
cmpr "hifi 100Mb -c" $w/hifi.fq -x map-hifi -c
cmpr "splice 40Mb -c" $w/splice.fq -x splice -c
