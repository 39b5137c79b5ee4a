#!/usr/bin/env bash
# call 4: fewer threads for the speculating passes. minimap2-thr (main with the urgent streams, plus
# MMW_FP_THREADS: the first pass's kt_for threads, MMW_FIN_THREADS: the final pass's), E. coli UL 200 Mb -c, -t16;
# and the urgent streams (minimap2) against 26a975d (minimap2-old) again.
exec > >(tee "$OUT/log.txt") 2>&1
B=$PWD/target/benchcarry D=$B/data w=/tmp/w ec=$B/data/ecoli_K12_MG1655.fasta.gz
mkdir -p $w/tr
t0=$SECONDS
[ -s $w/r200.fq ] || $B/bin/gen reads --ref $ec --seed 7 --profile $D/ecoli_ultralong_R9_nanotest.fastq.gz --bases 200000000 -o $w/r200.fq > /dev/null 2>&1
echo "inputs $((SECONDS - t0)) s"
rt() { sed -n 's/.*Real time: \([0-9.]*\) sec; CPU: \([0-9.]*\) sec; Peak RSS: \([0-9.]*\) GB.*/\1 s, CPU \2 s, RSS \3 GB/p' "$1"; }
gunzip -c $ec | head -c 100000 > $w/warm.fa
WARPALIGN_BACKEND=gpu $B/tools/minimap2 -t16 -x map-ont -c $w/warm.fa $w/warm.fa > /dev/null 2>&1
$B/tools/minimap2-ref -t16 -x map-ont -c $ec $w/r200.fq > $w/ref.out 2> $w/ref.err
echo "ecoli 200Mb -c ref: $(rt $w/ref.err)"
n=0
for round in 1 2; do
  for v in 16:16 15:16 14:16 12:16 16:8 14:8; do
    n=$((n + 1))
    MMW_FP_THREADS=${v%:*} MMW_FIN_THREADS=${v#*:} WARPALIGN_TRACE=1 $B/tools/minimap2-thr -t16 -x map-ont -c $ec $w/r200.fq > $w/new.out 2> $w/tr/thr$n.err
    cmp -s $w/ref.out $w/new.out && s=identical || s=DIFFERENT
    echo "ecoli 200Mb -c thr first:final $v (thr$n): $(rt $w/tr/thr$n.err) $s"
  done
done
for round in 1 2 3; do
  for v in old new; do
    bin=$B/tools/minimap2; [ $v = old ] && bin=$B/tools/minimap2-old
    $bin -t16 -x map-ont -c $ec $w/r200.fq > $w/new.out 2> $w/new.err
    cmp -s $w/ref.out $w/new.out && s=identical || s=DIFFERENT
    echo "ecoli 200Mb -c $v: $(rt $w/new.err) $s"
  done
done
tar -C $w -czf $OUT/traces.tgz tr
echo "all $((SECONDS - t0)) s"
