#!/usr/bin/env bash
# call 2: the GPU host threads (WARPALIGN_GPU_HOST_THREADS: default a quarter of the cores) that pack the ksw
# launches and unpack their results, against the ksw pipeline's wall: bench/ksw on dumped UL jobs, then -c end
# to end (E. coli 200 Mb UL, HiFi 100 Mb, splice 40 Mb), traced once.
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
wait $p1
WARPALIGN_KSW_DUMP=$w/ul.dump $B/tools/minimap2 -t16 -x map-ont -c $ec $w/r16.fq > /dev/null 2> /dev/null
wait $p2 $p3 $p4
echo "inputs $((SECONDS - t0)) s"
for h in 4 8 16; do
  echo "== ul host threads $h"
  WARPALIGN_GPU_HOST_THREADS=$h $B/bin/ksw --reps 3 --sample 100 $w/ul.dump 2>&1 | grep -E "\(d\)|\(a\)|mismatch|differ|rror"
done
rt() { sed -n 's/.*Real time: \([0-9.]*\) sec; CPU: \([0-9.]*\) sec; Peak RSS: \([0-9.]*\) GB.*/\1 s, CPU \2 s, RSS \3 GB/p' "$1"; }
gunzip -c $ec | head -c 100000 > $w/warm.fa
WARPALIGN_BACKEND=gpu $B/tools/minimap2 -t16 -x map-ont -c $w/warm.fa $w/warm.fa > /dev/null 2>&1
cmpr() { # LABEL QUERY ARGS...
  local label=$1 q=$2; shift 2
  $B/tools/minimap2-ref -t16 "$@" $ec $q > $w/ref.out 2> $w/ref.err
  echo "$label ref: $(rt $w/ref.err)"
  for h in 4 8 16 4 8 16; do
    WARPALIGN_GPU_HOST_THREADS=$h $B/tools/minimap2 -t16 "$@" $ec $q > $w/new.out 2> $w/new.err
    cmp -s $w/ref.out $w/new.out && s=identical || s=DIFFERENT
    echo "$label host threads $h: $(rt $w/new.err) $s"
  done
}
cmpr "ecoli 200Mb -c" $w/r200.fq -x map-ont -c
cmpr "hifi 100Mb -c" $w/hifi.fq -x map-hifi -c
cmpr "splice 40Mb -c" $w/splice.fq -x splice -c
WARPALIGN_TRACE=1 WARPALIGN_KSW_GPU_PROFILE=1 $B/tools/minimap2 -t16 -x map-ont -c $ec $w/r200.fq > /dev/null 2> $OUT/trace-ecoli-4.err
WARPALIGN_GPU_HOST_THREADS=16 WARPALIGN_TRACE=1 WARPALIGN_KSW_GPU_PROFILE=1 $B/tools/minimap2 -t16 -x map-ont -c $ec $w/r200.fq > /dev/null 2> $OUT/trace-ecoli-16.err
echo "all $((SECONDS - t0)) s"
