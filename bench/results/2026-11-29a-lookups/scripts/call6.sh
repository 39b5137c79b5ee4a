#!/usr/bin/env bash
# call 6: the mapping passes' threads at a lower priority (minimap2-nice: each kt_for worker of a speculating
# batch sets its nice value to MMW_NICE), so that the GPU's host threads (keys, packing, answers: the latency of
# a part's compute, which the pipeline's 4 threads wait on) get the cores when they have work. E. coli UL 200 Mb
# -c, nice 0, 5, 10, 19, order rotating, twice; HiFi 100 Mb -c and 8 x -t2 -c with 0 and 10.
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
gunzip -c $ec | head -c 100000 > $w/warm.fa
WARPALIGN_BACKEND=gpu $B/tools/minimap2 -t16 -x map-ont -c $w/warm.fa $w/warm.fa > /dev/null 2>&1
rt() { sed -n 's/.*Real time: \([0-9.]*\) sec; CPU: \([0-9.]*\) sec; Peak RSS: \([0-9.]*\) GB.*/\1 s, CPU \2 s, RSS \3 GB/p' "$1"; }
n=0
run() { # NICE QUERY ARGS...
  local nv=$1 q=$2; shift 2
  n=$((n + 1))
  MMW_NICE=$nv WARPALIGN_TRACE=1 $B/tools/minimap2-nice -t16 "$@" $ec $q > $w/new.out 2> $w/tr/run$n.err
  cmp -s $w/ref.out $w/new.out && s=identical || s=DIFFERENT
  echo "  nice $nv (run$n): $(rt $w/tr/run$n.err); $s; waited for computing ahead $(grep -o 'waited for the computing ahead: [0-9.]*' $w/tr/run$n.err | awk '{ s += $NF } END { print s }') s"
}
ref() { local q=${@: -1}; $B/tools/minimap2-ref -t16 "${@:1:$#-1}" $ec $q > $w/ref.out 2> $w/ref.err; echo "$* ref: $(rt $w/ref.err)"; }
ref -x map-ont -c $w/r200.fq
for v in 0 5 10 19 19 10 5 0; do run $v $w/r200.fq -x map-ont -c; done
ref -x map-hifi -c $w/hifi.fq
for v in 0 10 10 0; do run $v $w/hifi.fq -x map-hifi -c; done
awk -v w=$w 'NR % 4 == 1 { p = int((NR - 1) / 4) % 8 } { print > (w "/piece.0" p) }' $w/r200.fq
eight() { # LABEL CMD...
  local label=$1; shift
  local t=$(date +%s.%N) pids=()
  for i in 0 1 2 3 4 5 6 7; do
    "$@" -t2 -x map-ont -c $ec $w/piece.0$i > $w/eight.$i.out 2> $w/eight.$i.err &
    pids+=($!)
  done
  wait "${pids[@]}"
  echo "8 x -t2 -c $label: $(awk -v a=$t -v b=$(date +%s.%N) 'BEGIN { printf "%.2f", b - a }') s"
}
eight ref $B/tools/minimap2-ref
for i in 0 1 2 3 4 5 6 7; do mv $w/eight.$i.out $w/eightref.$i.out; done
for v in 0 10 0 10; do
  MMW_NICE=$v eight "nice $v" $B/tools/minimap2-nice
  ok=identical; for i in 0 1 2 3 4 5 6 7; do cmp -s $w/eight.$i.out $w/eightref.$i.out || ok=DIFFERENT; done; echo "  $ok"
done
tar -C $w -czf $OUT/traces.tgz tr
echo "all $((SECONDS - t0)) s"
