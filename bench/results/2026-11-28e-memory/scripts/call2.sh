#!/usr/bin/env bash
# call 2 (81488f9): peak RSS by mapping (/proc/PID/smaps at the highest VmRSS seen, sampled every 30 ms) of the
# rebuilt minimap2 -c on E. coli: 100 Mb of HiFi-profile reads (map-hifi) and 32 Mb of 1 kb UL-profile reads
# (map-ont, bench/run's len-1k), parts of 8, 4 and 2 Mb, and glibc's arenas capped at 2
exec > >(tee "$OUT/log.txt") 2>&1
B=$PWD/target/benchcarry D=$B/data w=/tmp/w ec=$B/data/ecoli_K12_MG1655.fasta.gz
mkdir -p $w
$B/bin/gen reads --ref $ec --seed 7 --mode hifi --profile $D/ecoli_sequel_clr_subreads.fastq.gz --len 15000 --bases 100000000 -o $w/hifi.fq > /dev/null 2>&1
$B/bin/gen reads --ref $ec --seed 7 --profile $D/ecoli_ultralong_R9_nanotest.fastq.gz --len 1000 --bases 32000000 -o $w/len1k.fq > /dev/null 2>&1
gunzip -c $ec | head -c 100000 > $w/warm.fa
WARPALIGN_BACKEND=gpu $B/tools/minimap2 -t16 -x map-ont -c $w/warm.fa $w/warm.fa > /dev/null 2>&1
rt() { sed -n 's/.*Real time: \([0-9.]*\) sec; CPU: \([0-9.]*\) sec; Peak RSS: \([0-9.]*\) GB.*/\1 s, CPU \2 s, RSS \3 GB/p' "$1"; }
# smaps FILE: Rss by kind of mapping, MB
smaps() { awk '/^[0-9a-f]+-[0-9a-f]+ / { n = ($6 == "" ? "[anon]" : $6); if (n ~ /^\/dev\/shm|^\/memfd|SYSV|zero/) n = "shm:" n; if (n ~ /nvidia/) n = "dev:" n } /^Rss:/ { r[n] += $2 } END { for (k in r) if (r[k] >= 1024) printf "%s %.0f; ", k, r[k] / 1024 }' "$1"; }
sampled() {
  local label=$1; shift
  local envs=()
  while [ "$1" != -- ]; do envs+=("$1"); shift; done; shift
  local tool=$B/tools/minimap2; [[ $label == ref* ]] && tool=$B/tools/minimap2-ref
  env "${envs[@]}" $tool "$@" > $w/s.out 2> $w/s.err &
  local pid=$! max=0
  while kill -0 $pid 2>/dev/null; do
    r=$(awk '/^VmRSS/ { print $2 }' /proc/$pid/status 2>/dev/null)
    if [ -n "$r" ] && [ "$r" -gt "$max" ]; then max=$r; cp /proc/$pid/smaps $w/peak.smaps 2>/dev/null; fi
    sleep 0.03
  done
  wait $pid
  local s=identical; [[ $label == ref* ]] && cp $w/s.out $w/ref.out || { cmp -s $w/s.out $w/ref.out || s=DIFFERENT; }
  echo "$label: $(rt $w/s.err) $s; sampled peak $((max / 1024)) MB: $(smaps $w/peak.smaps)"
}
for x in "hifi map-hifi $w/hifi.fq" "len1k map-ont $w/len1k.fq"; do
  set -- $x
  A="-t16 -x $2 -c $ec $3"
  sampled "ref $1" -- $A
  sampled "$1 default" X=1 -- $A
  sampled "$1 parts 4M" WARPALIGN_BATCH_BASES=4000000 -- $A
  sampled "$1 parts 2M" WARPALIGN_BATCH_BASES=2000000 -- $A
  sampled "$1 arenas 2" MALLOC_ARENA_MAX=2 -- $A
  sampled "$1 no seed gpu, arenas 2, parts 2M" MALLOC_ARENA_MAX=2 WARPALIGN_SEED_GPU=0 WARPALIGN_BATCH_BASES=2000000 -- $A
done
