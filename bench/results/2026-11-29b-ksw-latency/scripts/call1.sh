#!/usr/bin/env bash
# call 1: the ksw block form's cells a thread (WARPALIGN_KSW_GPU_CELLS 4, 8, 16 = default) on minimap2 runs,
# where the wide-window launches hold few jobs: E. coli UL 200 Mb -c, splice 40 Mb -c, HiFi 100 Mb -c,
# 8 x -t2 -c (order rotating); then the launches' profile with 16 and with 4.
exec > >(tee "$OUT/log.txt") 2>&1
B=$PWD/target/benchcarry D=$B/data w=/tmp/w ec=$B/data/ecoli_K12_MG1655.fasta.gz
mkdir -p $w
t0=$SECONDS
[ -s $w/r200.fq ] || $B/bin/gen reads --ref $ec --seed 7 --profile $D/ecoli_ultralong_R9_nanotest.fastq.gz --bases 200000000 -o $w/r200.fq > /dev/null 2>&1 &
p2=$!
[ -s $w/hifi.fq ] || $B/bin/gen reads --ref $ec --seed 7 --mode hifi --profile $D/ecoli_sequel_clr_subreads.fastq.gz --len 15000 --bases 100000000 -o $w/hifi.fq > /dev/null 2>&1 &
p3=$!
[ -s $w/splice.fq ] || $B/bin/gen reads --ref $ec --seed 7 --spliced --genes 2000 --profile $D/ecoli_R9_medaka_test_reads.fasta.gz --bases 40000000 -o $w/splice.fq > /dev/null 2>&1 &
p4=$!
wait $p2 $p3 $p4
echo "inputs $((SECONDS - t0)) s"
gunzip -c $ec | head -c 100000 > $w/warm.fa
WARPALIGN_BACKEND=gpu $B/tools/minimap2 -t16 -x map-ont -c $w/warm.fa $w/warm.fa > /dev/null 2>&1
rt() { sed -n 's/.*Real time: \([0-9.]*\) sec; CPU: \([0-9.]*\) sec; Peak RSS: \([0-9.]*\) GB.*/\1 s, CPU \2 s, RSS \3 GB/p' "$1"; }
run() { # CELLS QUERY ARGS...
  local c=$1 q=$2; shift 2
  WARPALIGN_KSW_GPU_CELLS=$c $B/tools/minimap2 -t16 "$@" $ec $q > $w/new.out 2> $w/new.err
  cmp -s $w/ref.out $w/new.out && s=identical || s=DIFFERENT
  echo "  cells $c: $(rt $w/new.err); $s"
}
ref() { local q=${@: -1}; $B/tools/minimap2-ref -t16 "${@:1:$#-1}" $ec $q > $w/ref.out 2> $w/ref.err; echo "$* ref: $(rt $w/ref.err)"; }
ref -x map-ont -c $w/r200.fq
for c in 16 4 8 4 16 8; do run $c $w/r200.fq -x map-ont -c; done
ref -x splice -c $w/splice.fq
for c in 16 4 8 8 4 16; do run $c $w/splice.fq -x splice -c; done
ref -x map-hifi -c $w/hifi.fq
for c in 16 4 4 16; do run $c $w/hifi.fq -x map-hifi -c; done
awk -v w=$w 'NR % 4 == 1 { p = int((NR - 1) / 4) % 8 } { print > (w "/piece.0" p) }' $w/r200.fq
eight() { # CELLS CMD...
  local c=$1; shift
  local t=$(date +%s.%N) pids=()
  for i in 0 1 2 3 4 5 6 7; do
    WARPALIGN_KSW_GPU_CELLS=$c "$@" -t2 -x map-ont -c $ec $w/piece.0$i > $w/eight.$i.out 2> $w/eight.$i.err &
    pids+=($!)
  done
  wait "${pids[@]}"
  echo "8 x -t2 -c cells $c: $(awk -v a=$t -v b=$(date +%s.%N) 'BEGIN { printf "%.2f", b - a }') s"
}
eight 16 $B/tools/minimap2-ref
for i in 0 1 2 3 4 5 6 7; do mv $w/eight.$i.out $w/eightref.$i.out; done
for c in 16 4 4 16; do
  eight $c $B/tools/minimap2
  ok=identical; for i in 0 1 2 3 4 5 6 7; do cmp -s $w/eight.$i.out $w/eightref.$i.out || ok=DIFFERENT; done; echo "  $ok"
done
for c in 16 4; do
  WARPALIGN_KSW_GPU_CELLS=$c WARPALIGN_KSW_GPU_PROFILE=1 WARPALIGN_TRACE=1 $B/tools/minimap2 -t16 -x map-ont -c $ec $w/r200.fq > /dev/null 2> $OUT/ecoli-profile-c$c.err
  WARPALIGN_KSW_GPU_CELLS=$c WARPALIGN_KSW_GPU_PROFILE=1 WARPALIGN_TRACE=1 $B/tools/minimap2 -t16 -x splice -c $ec $w/splice.fq > /dev/null 2> $OUT/splice-profile-c$c.err
done
echo "all $((SECONDS - t0)) s"
