#!/usr/bin/env bash
# call 3: malloc's settings. minimap2 (main + lookups without shared atomics) sets M_MMAP_THRESHOLD 4 MB,
# M_TRIM_THRESHOLD 128 kB and M_ARENA_MAX 4; minimap2-nomal sets nothing, minimap2-arena4 only the arenas,
# minimap2-big 64 MB thresholds and 4 arenas. E. coli UL 200 Mb -c twice each (order rotating), HiFi 100 Mb
# -c and 8 x -t2 -c once each; minor page faults and system time from /proc.
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
run() { # BIN QUERY ARGS...: runs it, prints time, faults, identical
  local bin=$1 q=$2; shift 2
  $B/tools/$bin -t16 "$@" $ec $q > $w/new.out 2> $w/new.err &
  local pid=$!
  while kill -0 $pid 2>/dev/null; do cat /proc/$pid/stat > $w/stat 2>/dev/null; sleep 0.02; done
  wait $pid
  local f=$(sed 's/^.*) //' $w/stat | awk '{ printf "minflt %d, utime %.2f, stime %.2f", $8, $12 / 100, $13 / 100 }')
  cmp -s $w/ref.out $w/new.out && s=identical || s=DIFFERENT
  echo "  $bin: $(rt $w/new.err); $f; $s"
}
ref() { local q=${@: -1}; $B/tools/minimap2-ref -t16 "${@:1:$#-1}" $ec $q > $w/ref.out 2> $w/ref.err; echo "$* ref: $(rt $w/ref.err)"; }
ref -x map-ont -c $w/r200.fq
for v in minimap2 minimap2-nomal minimap2-arena4 minimap2-big minimap2-big minimap2-arena4 minimap2-nomal minimap2; do run $v $w/r200.fq -x map-ont -c; done
ref -x map-hifi -c $w/hifi.fq
for v in minimap2 minimap2-nomal minimap2-arena4 minimap2-big; do run $v $w/hifi.fq -x map-hifi -c; done
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
for v in minimap2 minimap2-nomal minimap2-arena4 minimap2-big; do
  eight $v $B/tools/$v
  ok=identical; for i in 0 1 2 3 4 5 6 7; do cmp -s $w/eight.$i.out $w/eightref.$i.out || ok=DIFFERENT; done; echo "  $ok"
done
echo "all $((SECONDS - t0)) s"
