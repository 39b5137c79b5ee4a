#!/usr/bin/env bash
# call 2: the block form's threads a job by the launch's size (block_threads: 4 cells a thread while the
# launch fits the device's resident threads, up to 16 as it outgrows it) against 16 cells a thread in every
# launch (WARPALIGN_KSW_GPU_CELLS=16, the behaviour before), and the narrow windows in the block form too
# (WARPALIGN_KSW_GPU_WARP=0). bench/ksw on dumped UL and spliced jobs; E. coli UL 200 Mb -c, splice 40 Mb -c,
# HiFi 100 Mb -c, 8 x -t2 -c (order rotating); profiles.
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
[ -s $w/ul.dump ] || { head -n 4000 $w/r200.fq > $w/r20.fq; WARPALIGN_KSW_DUMP=$w/ul.dump $B/tools/minimap2 -t16 -x map-ont -c $ec $w/r20.fq > /dev/null 2>&1; }
[ -s $w/sp.dump ] || { head -n 20000 $w/splice.fq > $w/sp5.fq; WARPALIGN_KSW_DUMP=$w/sp.dump $B/tools/minimap2 -t16 -x splice -c $ec $w/sp5.fq > /dev/null 2>&1; }
ls -la $w/*.dump
echo "dumps $((SECONDS - t0)) s"
for d in ul sp; do
  for c in default 16 default 16; do
    echo "== bench ksw $d, cells $c"
    if [ $c = default ]; then $B/bin/ksw --reps 3 --sample 100 $w/$d.dump 2>&1 | grep -E "\(d\)|\(a\)|mismatch|differ|rror"
    else WARPALIGN_KSW_GPU_CELLS=$c $B/bin/ksw --reps 3 --sample 100 $w/$d.dump 2>&1 | grep -E "\(d\)|\(a\)|mismatch|differ|rror"; fi
  done
done
gunzip -c $ec | head -c 100000 > $w/warm.fa
WARPALIGN_BACKEND=gpu $B/tools/minimap2 -t16 -x map-ont -c $w/warm.fa $w/warm.fa > /dev/null 2>&1
rt() { sed -n 's/.*Real time: \([0-9.]*\) sec; CPU: \([0-9.]*\) sec; Peak RSS: \([0-9.]*\) GB.*/\1 s, CPU \2 s, RSS \3 GB/p' "$1"; }
envof() { case $1 in new) echo X=1 ;; c16) echo WARPALIGN_KSW_GPU_CELLS=16 ;; w0) echo WARPALIGN_KSW_GPU_WARP=0 ;; esac; }
run() { # VARIANT QUERY ARGS...
  local v=$1 q=$2; shift 2
  env $(envof $v) $B/tools/minimap2 -t16 "$@" $ec $q > $w/new.out 2> $w/new.err
  cmp -s $w/ref.out $w/new.out && s=identical || s=DIFFERENT
  echo "  $v: $(rt $w/new.err); $s"
}
ref() { local q=${@: -1}; $B/tools/minimap2-ref -t16 "${@:1:$#-1}" $ec $q > $w/ref.out 2> $w/ref.err; echo "$* ref: $(rt $w/ref.err)"; }
ref -x map-ont -c $w/r200.fq
for v in new c16 w0 w0 c16 new; do run $v $w/r200.fq -x map-ont -c; done
ref -x splice -c $w/splice.fq
for v in new c16 w0 w0 c16 new; do run $v $w/splice.fq -x splice -c; done
ref -x map-hifi -c $w/hifi.fq
for v in new c16 c16 new; do run $v $w/hifi.fq -x map-hifi -c; done
awk -v w=$w 'NR % 4 == 1 { p = int((NR - 1) / 4) % 8 } { print > (w "/piece.0" p) }' $w/r200.fq
eight() { # VARIANT CMD...
  local v=$1; shift
  local t=$(date +%s.%N) pids=()
  for i in 0 1 2 3 4 5 6 7; do
    env $(envof $v) "$@" -t2 -x map-ont -c $ec $w/piece.0$i > $w/eight.$i.out 2> $w/eight.$i.err &
    pids+=($!)
  done
  wait "${pids[@]}"
  echo "8 x -t2 -c $v: $(awk -v a=$t -v b=$(date +%s.%N) 'BEGIN { printf "%.2f", b - a }') s"
}
eight ref $B/tools/minimap2-ref
for i in 0 1 2 3 4 5 6 7; do mv $w/eight.$i.out $w/eightref.$i.out; done
for v in new c16 c16 new; do
  eight $v $B/tools/minimap2
  ok=identical; for i in 0 1 2 3 4 5 6 7; do cmp -s $w/eight.$i.out $w/eightref.$i.out || ok=DIFFERENT; done; echo "  $ok"
done
for v in new w0; do
  env $(envof $v) WARPALIGN_KSW_GPU_PROFILE=1 WARPALIGN_TRACE=1 $B/tools/minimap2 -t16 -x splice -c $ec $w/splice.fq > /dev/null 2> $OUT/splice-profile-$v.err
done
WARPALIGN_KSW_GPU_PROFILE=1 WARPALIGN_TRACE=1 $B/tools/minimap2 -t16 -x map-ont -c $ec $w/r200.fq > /dev/null 2> $OUT/ecoli-profile-new.err
echo "all $((SECONDS - t0)) s"
