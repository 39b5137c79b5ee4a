#!/usr/bin/env bash
# call 6: the seeding's sort without a host wait per level (minimap2-sort: every level launched at once, each reading
# its count of tasks on the device) and reading two parts ahead (minimap2-ra2), against main (b25d244: one part ahead).
# E. coli UL 200 Mb -c / no -c, HiFi -c, splice -c, 8 x -t2 -c; traced with the seeding's profile.
exec > >(tee "$OUT/log.txt") 2>&1
B=$PWD/target/benchcarry D=$B/data w=/tmp/w ec=$B/data/ecoli_K12_MG1655.fasta.gz
mkdir -p $w
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
cmpr() { # LABEL QUERY ARGS...
  local label=$1 q=$2; shift 2
  $B/tools/minimap2-ref -t16 "$@" $ec $q > $w/ref.out 2> $w/ref.err
  echo "$label ref: $(rt $w/ref.err)"
  for round in 1 2; do
    for v in minimap2 minimap2-sort minimap2-ra2; do
      $B/tools/$v -t16 "$@" $ec $q > $w/new.out 2> $w/new.err
      cmp -s $w/ref.out $w/new.out && s=identical || s=DIFFERENT
      echo "$label $v: $(rt $w/new.err) $s"
    done
  done
}
cmpr "ecoli 200Mb -c" $w/r200.fq -x map-ont -c
cmpr "ecoli 200Mb" $w/r200.fq -x map-ont
cmpr "hifi 100Mb -c" $w/hifi.fq -x map-hifi -c
cmpr "splice 40Mb -c" $w/splice.fq -x splice -c
for v in minimap2 minimap2-sort; do
  WARPALIGN_TRACE=1 WARPALIGN_SEED_GPU_PROFILE=1 $B/tools/$v -t16 -x map-ont -c $ec $w/r200.fq > /dev/null 2> $OUT/trace-ecoli-$v.err
done
awk -v w=$w 'NR % 4 == 1 { p = int((NR - 1) / 4) % 8 } { print > (w "/piece.0" p) }' $w/r200.fq
eight() { # LABEL CMD...
  local label=$1; shift
  local t=$(date +%s.%N) pids=()
  for i in 0 1 2 3 4 5 6 7; do
    "$@" -t2 -x map-ont -c $ec $w/piece.0$i > $w/eight.$i.out 2> $w/eight.$i.err &
    pids+=($!)
  done
  wait "${pids[@]}"
  echo "$label: $(awk -v a=$t -v b=$(date +%s.%N) 'BEGIN { printf "%.2f", b - a }') s"
}
eight "8 x -t2 -c ref" $B/tools/minimap2-ref
for i in 0 1 2 3 4 5 6 7; do mv $w/eight.$i.out $w/eightref.$i.out; done
for round in 1 2; do
  for v in minimap2 minimap2-sort minimap2-ra2; do
    eight "8 x -t2 -c $v" $B/tools/$v
    ok=identical; for i in 0 1 2 3 4 5 6 7; do cmp -s $w/eight.$i.out $w/eightref.$i.out || ok=DIFFERENT; done; echo "  $ok"
  done
done
echo "all $((SECONDS - t0)) s"
