#!/usr/bin/env bash
# call 1: splice's bimodal runs. minimap2-rp is main with MMW_ROUNDS_PCT (the final-pass miss share, in %, above
# which record rounds turn on; main's is 1) and a line per batch with its misses. Splice 40 Mb -c and HiFi 100 Mb -c.
exec > >(tee "$OUT/log.txt") 2>&1
B=$PWD/target/benchcarry D=$B/data w=/tmp/w ec=$B/data/ecoli_K12_MG1655.fasta.gz
mkdir -p $w/tr
t0=$SECONDS
$B/bin/gen reads --ref $ec --seed 7 --mode hifi --profile $D/ecoli_sequel_clr_subreads.fastq.gz --len 15000 --bases 100000000 -o $w/hifi.fq > /dev/null 2>&1 &
p3=$!
$B/bin/gen reads --ref $ec --seed 7 --spliced --genes 2000 --profile $D/ecoli_R9_medaka_test_reads.fasta.gz --bases 40000000 -o $w/splice.fq > /dev/null 2>&1 &
p4=$!
wait $p3 $p4
echo "inputs $((SECONDS - t0)) s"
rt() { sed -n 's/.*Real time: \([0-9.]*\) sec; CPU: \([0-9.]*\) sec; Peak RSS: \([0-9.]*\) GB.*/\1 s, CPU \2 s, RSS \3 GB/p' "$1"; }
gunzip -c $ec | head -c 100000 > $w/warm.fa
WARPALIGN_BACKEND=gpu $B/tools/minimap2 -t16 -x map-ont -c $w/warm.fa $w/warm.fa > /dev/null 2>&1
n=0
cmpr() { # LABEL QUERY ARGS...
  local label=$1 q=$2; shift 2
  $B/tools/minimap2-ref -t16 "$@" $ec $q > $w/ref.out 2> $w/ref.err
  echo "$label ref: $(rt $w/ref.err)"
  for round in 1 2 3; do
    for v in main:1 rp:1 rp:1000 rp:5; do
      n=$((n + 1))
      local bin=$B/tools/minimap2; [ ${v%:*} = rp ] && bin=$B/tools/minimap2-rp
      WARPALIGN_TRACE=1 MMW_ROUNDS_PCT=${v#*:} $bin -t16 "$@" $ec $q > $w/new.out 2> $w/tr/run$n.err
      cmp -s $w/ref.out $w/new.out && s=identical || s=DIFFERENT
      echo "$label ${v%:*} pct ${v#*:} (run$n): $(rt $w/tr/run$n.err) $s"
      grep -h "mmwvar" $w/tr/run$n.err | awk '{ m += $3; h += $5; p += $7; n++ } END { printf "  batches %d, misses %d, hits %d, batches over: %d\n", n, m, h, p }'
      grep -h "computed ahead in" $w/tr/run$n.err | awk '{ for (i = 1; i <= NF; i++) if ($i == "batch" || $i == "batches") r += $(i-1) } END { printf "  rounds in all %d\n", r }'
    done
  done
}
cmpr "splice 40Mb -c" $w/splice.fq -x splice -c
cmpr "hifi 100Mb -c" $w/hifi.fq -x map-hifi -c
tar -C $w -czf $OUT/traces.tgz tr
echo "all $((SECONDS - t0)) s"
