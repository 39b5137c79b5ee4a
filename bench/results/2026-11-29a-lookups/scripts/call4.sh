#!/usr/bin/env bash
# call 4: the ksw cache's keys and answers in blocks each shard keeps from batch to batch, and the computes'
# records buffers kept (minimap2), against main before this session (minimap2-base), call 1's build
# (minimap2-atom) and call 3's 64 MB malloc thresholds (minimap2-big). E. coli UL 200 Mb -c twice each (order
# rotating), the first pass by stage (minimap2-prof, minimap2-prof-base), HiFi 100 Mb -c and 8 x -t2 -c once
# each; minor page faults from /proc; bench ksw --cache with malloc's 4 arenas and the default.
exec > >(tee "$OUT/log.txt") 2>&1
B=$PWD/target/benchcarry D=$B/data w=/tmp/w ec=$B/data/ecoli_K12_MG1655.fasta.gz
mkdir -p $w
t0=$SECONDS
[ -s $w/r200.fq ] || $B/bin/gen reads --ref $ec --seed 7 --profile $D/ecoli_ultralong_R9_nanotest.fastq.gz --bases 200000000 -o $w/r200.fq > /dev/null 2>&1 &
p2=$!
[ -s $w/hifi.fq ] || $B/bin/gen reads --ref $ec --seed 7 --mode hifi --profile $D/ecoli_sequel_clr_subreads.fastq.gz --len 15000 --bases 100000000 -o $w/hifi.fq > /dev/null 2>&1 &
p3=$!
wait $p2 $p3
echo "inputs $((SECONDS - t0)) s"
gunzip -c $ec | head -c 100000 > $w/warm.fa
WARPALIGN_BACKEND=gpu $B/tools/minimap2 -t16 -x map-ont -c $w/warm.fa $w/warm.fa > /dev/null 2>&1
rt() { sed -n 's/.*Real time: \([0-9.]*\) sec; CPU: \([0-9.]*\) sec; Peak RSS: \([0-9.]*\) GB.*/\1 s, CPU \2 s, RSS \3 GB/p' "$1"; }
sum() { sed -n 's/.*first pass stages: \([0-9]*\) frags; CPU s: seeds \([0-9.]*\), chain \([0-9.]*\), rmq \([0-9.]*\), post \([0-9.]*\), align \([0-9.]*\) (ksw lookups \([0-9.]*\)).*/\1 \2 \3 \4 \5 \6 \7/p' "$1" | awk '{ for (i = 1; i <= 7; ++i) s[i] += $i } END { printf "frags %d; CPU s: seeds %.3f, chain %.3f, rmq %.3f, post %.3f, align %.3f (ksw lookups %.3f)", s[1], s[2], s[3], s[4], s[5], s[6], s[7] }'; }
run() { # BIN QUERY ARGS...: runs it, prints time, faults, identical
  local bin=$1 q=$2; shift 2
  local tr=; case $bin in *prof*) tr=1;; esac
  WARPALIGN_TRACE=$tr $B/tools/$bin -t16 "$@" $ec $q > $w/new.out 2> $w/new.err &
  local pid=$!
  while kill -0 $pid 2>/dev/null; do cat /proc/$pid/stat > $w/stat 2>/dev/null; sleep 0.02; done
  wait $pid
  local f=$(sed 's/^.*) //' $w/stat | awk '{ printf "minflt %d, utime %.2f, stime %.2f", $8, $12 / 100, $13 / 100 }')
  cmp -s $w/ref.out $w/new.out && s=identical || s=DIFFERENT
  echo "  $bin: $(rt $w/new.err); $f; $s"
  [ -n "$tr" ] && echo "     first passes $(sed 's/^.warpalign [0-9.]*. //' $w/new.err | awk '/^first pass:/ { s += $3 } END { print s }') s wall; $(sum $w/new.err)"
  return 0
}
ref() { local q=${@: -1}; $B/tools/minimap2-ref -t16 "${@:1:$#-1}" $ec $q > $w/ref.out 2> $w/ref.err; echo "$* ref: $(rt $w/ref.err)"; }
ref -x map-ont -c $w/r200.fq
for v in minimap2-base minimap2 minimap2-atom minimap2-big minimap2 minimap2-base minimap2-big minimap2-atom minimap2-prof-base minimap2-prof; do run $v $w/r200.fq -x map-ont -c; done
ref -x map-hifi -c $w/hifi.fq
for v in minimap2-base minimap2 minimap2-big; do run $v $w/hifi.fq -x map-hifi -c; done
awk -v w=$w 'NR % 4 == 1 { p = int((NR - 1) / 4) % 8 } { print > (w "/piece.0" p) }' $w/r200.fq
eight() { # LABEL CMD...
  local label=$1; shift
  local t=$(date +%s.%N) pids=()
  for i in 0 1 2 3 4 5 6 7; do
    "$@" -t2 -x map-ont -c $ec $w/piece.0$i > $w/eight.$i.out 2> $w/eight.$i.err &
    pids+=($!)
  done
  wait "${pids[@]}"
  echo "8 x -t2 -c $label: $(awk -v a=$t -v b=$(date +%s.%N) 'BEGIN { printf "%.2f", b - a }') s, peak RSS $(cat $w/eight.*.err | sed -n 's/.*Peak RSS: \([0-9.]*\) GB.*/\1/p' | sort -n | tail -1) GB a process"
}
eight ref $B/tools/minimap2-ref
for i in 0 1 2 3 4 5 6 7; do mv $w/eight.$i.out $w/eightref.$i.out; done
for v in minimap2-base minimap2 minimap2-big; do
  eight $v $B/tools/$v
  ok=identical; for i in 0 1 2 3 4 5 6 7; do cmp -s $w/eight.$i.out $w/eightref.$i.out || ok=DIFFERENT; done; echo "  $ok"
done
[ -s $w/ul.dump ] || { head -n 4000 $w/r200.fq > $w/r20.fq; WARPALIGN_KSW_DUMP=$w/ul.dump $B/tools/minimap2 -t16 -x map-ont -c $ec $w/r20.fq > /dev/null 2>&1; }
$B/bin/ksw --cache 1,4,16 $w/ul.dump
$B/bin/ksw --cache 1,4,16 --arenas 4 $w/ul.dump
echo "all $((SECONDS - t0)) s"
