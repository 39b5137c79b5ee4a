#!/usr/bin/env bash
# call 1 (81488f9): where the rebuilt minimap2's peak RSS goes on E. coli with 100 Mb of HiFi-profile reads
# (map-hifi -c): the reference, the default, seeding on the CPU, no speculation, the CPU backend, each sampled
# every 20 ms from /proc (VmRSS, RssAnon, RssFile, RssShmem, VmPin); the GPU context alone (a 100 kb run forced
# onto the GPU); then E. coli with 200 Mb of UL reads with -c, parts of 8 and 16 Mb (two rounds after the reference)
exec > >(tee "$OUT/log.txt") 2>&1
B=$PWD/target/benchcarry D=$B/data w=/tmp/w ec=$B/data/ecoli_K12_MG1655.fasta.gz
mkdir -p $w
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
$B/bin/gen reads --ref $ec --seed 7 --mode hifi --profile $D/ecoli_sequel_clr_subreads.fastq.gz --len 15000 --bases 100000000 -o $w/hifi.fq > /dev/null 2>&1
$B/bin/gen reads --ref $ec --seed 7 --profile $D/ecoli_ultralong_R9_nanotest.fastq.gz --bases 200000000 -o $w/r200.fq --stats $w/r200.stats
gunzip -c $ec | head -c 100000 > $w/warm.fa
WARPALIGN_BACKEND=gpu $B/tools/minimap2 -t16 -x map-ont -c $w/warm.fa $w/warm.fa > /dev/null 2>&1
rt() { sed -n 's/.*Real time: \([0-9.]*\) sec; CPU: \([0-9.]*\) sec; Peak RSS: \([0-9.]*\) GB.*/\1 s, CPU \2 s, RSS \3 GB/p' "$1"; }
# sampled LABEL ENV... -- ARGS: runs minimap2 (or minimap2-ref when LABEL starts with ref) under env, samples /proc
sampled() {
  local label=$1; shift
  local envs=()
  while [ "$1" != -- ]; do envs+=("$1"); shift; done; shift
  local tool=$B/tools/minimap2; [[ $label == ref* ]] && tool=$B/tools/minimap2-ref
  env "${envs[@]}" $tool "$@" > $w/s.out 2> $w/s.err &
  local pid=$!
  while kill -0 $pid 2>/dev/null; do
    grep -E '^(VmRSS|RssAnon|RssFile|RssShmem|VmPin|VmLck)' /proc/$pid/status 2>/dev/null | awk '{ printf "%s %s ", $1, $2 } END { print "" }'
    sleep 0.02
  done > $w/s.samples
  wait $pid
  local s=identical; [[ $label == ref* ]] && cp $w/s.out $w/ref.out || { cmp -s $w/s.out $w/ref.out || s=DIFFERENT; }
  echo "$label: $(rt $w/s.err) $s; max MB: $(awk '{ for (i = 1; i < NF; i += 2) if ($(i + 1) > m[$i]) m[$i] = $(i + 1) } END { for (k in m) printf "%s %.0f ", k, m[k] / 1024 }' $w/s.samples)"
  cp $w/s.samples $OUT/samples.$(echo $label | tr ' /:' '___').txt 2>/dev/null || true
}
H="-t16 -x map-hifi -c $ec $w/hifi.fq"
sampled "ref hifi" -- $H
sampled "hifi default" X=1 -- $H
sampled "hifi seed cpu" WARPALIGN_SEED_GPU=0 -- $H
sampled "hifi no speculation" WARPALIGN_SPECULATE=0 -- $H
sampled "hifi backend cpu" WARPALIGN_BACKEND=cpu -- $H
sampled "hifi parts 4M" WARPALIGN_BATCH_BASES=4000000 -- $H
WARPALIGN_TRACE=1 WARPALIGN_KSW_GPU_PROFILE=1 $B/tools/minimap2 $H > /dev/null 2> $OUT/trace.hifi.err
echo "hifi traced: $(rt $OUT/trace.hifi.err)"
W="-t16 -x map-ont -c $w/warm.fa $w/warm.fa"
sampled "ref warm" -- $W
sampled "warm gpu" WARPALIGN_BACKEND=gpu -- $W
sampled "warm cpu" WARPALIGN_BACKEND=cpu -- $W
E="-t16 -x map-ont -c $ec $w/r200.fq"
sampled "ref ecoli -c" -- $E
for round in 1 2; do
  for parts in 8000000 16000000; do
    sampled "ecoli -c parts $parts round $round" WARPALIGN_BATCH_BASES=$parts -- $E
  done
done
