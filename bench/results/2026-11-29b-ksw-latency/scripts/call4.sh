#!/usr/bin/env bash
# call 4: the device's hardware queues (CUDA_DEVICE_MAX_CONNECTIONS; the glue sets 4 for splice, 2 otherwise,
# unless the user set it). In splice -c the parts' last computes run 0.95-1.24 s each, four at once, with
# kernels that leave most of the device idle at their tails (ncu, call 3: 4-17% occupancy): kernels of
# other streams queue behind them when they share a hardware queue. Splice 40 Mb -c, E. coli UL 200 Mb -c,
# HiFi 100 Mb -c (order rotating).
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
run() { # CONNECTIONS QUERY ARGS...
  local c=$1 q=$2; shift 2
  if [ $c = default ]; then $B/tools/minimap2 -t16 "$@" $ec $q > $w/new.out 2> $w/new.err
  else CUDA_DEVICE_MAX_CONNECTIONS=$c $B/tools/minimap2 -t16 "$@" $ec $q > $w/new.out 2> $w/new.err; fi
  cmp -s $w/ref.out $w/new.out && s=identical || s=DIFFERENT
  echo "  connections $c: $(rt $w/new.err); $s"
}
ref() { local q=${@: -1}; $B/tools/minimap2-ref -t16 "${@:1:$#-1}" $ec $q > $w/ref.out 2> $w/ref.err; echo "$* ref: $(rt $w/ref.err)"; }
ref -x splice -c $w/splice.fq
for c in default 8 16 32 32 16 8 default; do run $c $w/splice.fq -x splice -c; done
ref -x map-ont -c $w/r200.fq
for c in default 4 8 8 4 default; do run $c $w/r200.fq -x map-ont -c; done
ref -x map-hifi -c $w/hifi.fq
for c in default 8 8 default; do run $c $w/hifi.fq -x map-hifi -c; done
CUDA_DEVICE_MAX_CONNECTIONS=16 WARPALIGN_TRACE=1 $B/tools/minimap2 -t16 -x splice -c $ec $w/splice.fq > /dev/null 2> $OUT/splice-trace-c16.err
echo "all $((SECONDS - t0)) s"
