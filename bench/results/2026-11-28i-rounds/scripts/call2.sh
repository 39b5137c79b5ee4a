#!/usr/bin/env bash
# call 2: parts of 2 Mb while the GPU starts (minimap2) against main before it (minimap2-old). Splice 40 Mb -c,
# HiFi 100 Mb -c, E. coli UL 200 Mb -c, three rounds, order alternating; 8 x -t2 -c once each, traced.
exec > >(tee "$OUT/log.txt") 2>&1
B=$PWD/target/benchcarry D=$B/data w=/tmp/w ec=$B/data/ecoli_K12_MG1655.fasta.gz
mkdir -p $w/tr
t0=$SECONDS
$B/bin/gen reads --ref $ec --seed 7 --profile $D/ecoli_ultralong_R9_nanotest.fastq.gz --bases 200000000 -o $w/r200.fq > /dev/null 2>&1 &
p2=$!
$B/bin/gen reads --ref $ec --seed 7 --mode hifi --profile $D/ecoli_sequel_clr_subreads.fastq.gz --len 15000 --bases 100000000 -o $w/hifi.fq > /dev/null 2>&1 &
p3=$!
$B/bin/gen reads --ref $ec --seed 7 --spliced --genes 2000 --profile $D/ecoli_R9_medaka_test_reads.fasta.gz --bases 40000000 -o $w/splice.fq > /dev/null 2>&1 &
p4=$!
wait $p2 $p3 $p4
echo "inputs $((SECONDS - t0)) s"
rt() { sed -n 's/.*Real time: \([0-9.]*\) sec; CPU: \([0-9.]*\) sec; Peak RSS: \([0-9.]*\) GB.*/\1 s, CPU \2 s, RSS \3 GB/p' "$1"; }
gunzip -c $ec | head -c 100000 > $w/warm.fa
WARPALIGN_BACKEND=gpu $B/tools/minimap2 -t16 -x map-ont -c $w/warm.fa $w/warm.fa > /dev/null 2>&1
n=0
cmpr() { # LABEL QUERY ARGS...
  local label=$1 q=$2; shift 2
  $B/tools/minimap2-ref -t16 "$@" $ec $q > $w/ref.out 2> $w/ref.err
  echo "$label ref: $(rt $w/ref.err)"
  for order in "old new" "new old" "old new"; do
    for v in $order; do
      n=$((n + 1))
      local bin=$B/tools/minimap2; [ $v = old ] && bin=$B/tools/minimap2-old
      WARPALIGN_TRACE=1 $bin -t16 "$@" $ec $q > $w/new.out 2> $w/tr/run$n.err
      cmp -s $w/ref.out $w/new.out && s=identical || s=DIFFERENT
      echo "$label $v (run$n): $(rt $w/tr/run$n.err) $s; first parts on the CPU: $(grep -c 'fragments in' $w/tr/run$n.err)"
    done
  done
}
cmpr "splice 40Mb -c" $w/splice.fq -x splice -c
cmpr "hifi 100Mb -c" $w/hifi.fq -x map-hifi -c
cmpr "ecoli 200Mb -c" $w/r200.fq -x map-ont -c
awk -v w=$w 'NR % 4 == 1 { p = int((NR - 1) / 4) % 8 } { print > (w "/piece.0" p) }' $w/r200.fq
eight() { # LABEL CMD...
  local label=$1; shift
  local t=$(date +%s.%N) pids=()
  for i in 0 1 2 3 4 5 6 7; do
    "$@" -t2 -x map-ont -c $ec $w/piece.0$i > $w/eight.$i.out 2> $w/tr/eight-$label.$i.err &
    pids+=($!)
  done
  wait "${pids[@]}"
  echo "8 x -t2 -c $label: $(awk -v a=$t -v b=$(date +%s.%N) 'BEGIN { printf "%.2f", b - a }') s"
}
eight ref $B/tools/minimap2-ref
for i in 0 1 2 3 4 5 6 7; do mv $w/eight.$i.out $w/eightref.$i.out; done
for v in old new; do
  bin=$B/tools/minimap2; [ $v = old ] && bin=$B/tools/minimap2-old
  WARPALIGN_TRACE=1 eight $v $bin
  ok=identical; for i in 0 1 2 3 4 5 6 7; do cmp -s $w/eight.$i.out $w/eightref.$i.out || ok=DIFFERENT; done; echo "  $ok"
done
tar -C $w -czf $OUT/traces.tgz tr
echo "all $((SECONDS - t0)) s"
