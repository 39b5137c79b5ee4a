#!/usr/bin/env bash
# call 1: the C API's lookups without shared atomics (no global call counter on per-job entry points, the ksw
# cache's counters per shard, shards on their own cache lines) = minimap2, against main before (minimap2-base);
# minimap2-a16: the same with 16 malloc arenas instead of 4. E. coli UL 200 Mb -c twice each, order rotating;
# the first pass's CPU by stage (variants/first-pass-stages.diff of 28i) for each; HiFi 100 Mb -c; 8 x -t2 -c.
exec > >(tee "$OUT/log.txt") 2>&1
B=$PWD/target/benchcarry D=$B/data w=/tmp/w ec=$B/data/ecoli_K12_MG1655.fasta.gz
mkdir -p $w/tr
t0=$SECONDS
[ -s $w/r200.fq ] || $B/bin/gen reads --ref $ec --seed 7 --profile $D/ecoli_ultralong_R9_nanotest.fastq.gz --bases 200000000 -o $w/r200.fq > /dev/null 2>&1 &
p2=$!
[ -s $w/hifi.fq ] || $B/bin/gen reads --ref $ec --seed 7 --mode hifi --profile $D/ecoli_sequel_clr_subreads.fastq.gz --len 15000 --bases 100000000 -o $w/hifi.fq > /dev/null 2>&1 &
p3=$!
wait $p2 $p3
echo "inputs $((SECONDS - t0)) s"
rt() { sed -n 's/.*Real time: \([0-9.]*\) sec; CPU: \([0-9.]*\) sec; Peak RSS: \([0-9.]*\) GB.*/\1 s, CPU \2 s, RSS \3 GB/p' "$1"; }
sum() { sed -n 's/.*first pass stages: \([0-9]*\) frags; CPU s: seeds \([0-9.]*\), chain \([0-9.]*\), rmq \([0-9.]*\), post \([0-9.]*\), align \([0-9.]*\) (ksw lookups \([0-9.]*\)).*/\1 \2 \3 \4 \5 \6 \7/p' "$1" | awk '{ for (i = 1; i <= 7; ++i) s[i] += $i } END { printf "frags %d; CPU s: seeds %.3f, chain %.3f, rmq %.3f, post %.3f, align %.3f (ksw lookups %.3f)", s[1], s[2], s[3], s[4], s[5], s[6], s[7] }'; }
gunzip -c $ec | head -c 100000 > $w/warm.fa
WARPALIGN_BACKEND=gpu $B/tools/minimap2 -t16 -x map-ont -c $w/warm.fa $w/warm.fa > /dev/null 2>&1
n=0
cmpr() { # LABEL ORDERS QUERY ARGS...
  local label=$1 orders=$2 q=$3; shift 3
  $B/tools/minimap2-ref -t16 "$@" $ec $q > $w/ref.out 2> $w/ref.err
  echo "$label ref: $(rt $w/ref.err)"
  for v in $orders; do
    n=$((n + 1))
    WARPALIGN_TRACE=1 $B/tools/$v -t16 "$@" $ec $q > $w/new.out 2> $w/tr/run$n.err
    cmp -s $w/ref.out $w/new.out && s=identical || s=DIFFERENT
    echo "$label $v (run$n): $(rt $w/tr/run$n.err) $s"
    case $v in *prof*) echo "   first passes $(sed 's/^.warpalign [0-9.]*. //' $w/tr/run$n.err | awk '/^first pass:/ { s += $3 } END { print s }') s wall; $(sum $w/tr/run$n.err)";; esac
  done
}
cmpr "ecoli 200Mb -c" "minimap2-base minimap2 minimap2-a16 minimap2-a16 minimap2 minimap2-base minimap2-prof-base minimap2-prof minimap2-prof16" $w/r200.fq -x map-ont -c
cmpr "hifi 100Mb -c" "minimap2-base minimap2 minimap2-a16" $w/hifi.fq -x map-hifi -c
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
for v in minimap2-base minimap2 minimap2-a16; do
  eight $v $B/tools/$v
  ok=identical; for i in 0 1 2 3 4 5 6 7; do cmp -s $w/eight.$i.out $w/eightref.$i.out || ok=DIFFERENT; done; echo "  $ok"
done
tar -C $w -czf $OUT/traces.tgz tr
echo "all $((SECONDS - t0)) s"
