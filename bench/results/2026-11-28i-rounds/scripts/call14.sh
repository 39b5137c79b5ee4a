#!/usr/bin/env bash
# call 14: where the first pass's CPU goes. minimap2-prof (variants/first-pass-stages.diff: per fragment of each
# first pass, the time from its start to its seeds taken, in mg_lchain_dp, in mg_lchain_rmq, from there to the
# snapshot (regions, mapq, post-chaining), and from the snapshot to its end (the alignment replay, of it the ksw
# lookups), summed over threads and printed per part with WARPALIGN_TRACE=1). E. coli UL 200 Mb -c twice, HiFi
# 100 Mb -c once.
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
sum() { sed -n 's/.*first pass stages: \([0-9]*\) frags; CPU s: seeds \([0-9.]*\), chain \([0-9.]*\), rmq \([0-9.]*\), post \([0-9.]*\), align \([0-9.]*\) (ksw lookups \([0-9.]*\)).*/\1 \2 \3 \4 \5 \6 \7/p' "$1" | awk '{ for (i = 1; i <= 7; ++i) s[i] += $i } END { printf "frags %d; CPU s: seeds %.3f, chain %.3f, rmq %.3f, post %.3f, align %.3f (ksw lookups %.3f)", s[1], s[2], s[3], s[4], s[5], s[6], s[7] }'; }
for r in 1 2; do
  WARPALIGN_TRACE=1 $B/tools/minimap2-prof -t16 -x map-ont -c $ec $w/r200.fq > /dev/null 2> $OUT/ecoli$r.err
  echo "ecoli 200Mb -c run $r: $(grep -o 'Real time.*' $OUT/ecoli$r.err); first passes $(sed 's/^.warpalign [0-9.]*. //' $OUT/ecoli$r.err | awk '/^first pass:/ { s += $3 } END { print s }') s wall; $(sum $OUT/ecoli$r.err)"
done
WARPALIGN_TRACE=1 $B/tools/minimap2-prof -t16 -x map-hifi -c $ec $w/hifi.fq > /dev/null 2> $OUT/hifi.err
echo "hifi 100Mb -c: $(grep -o 'Real time.*' $OUT/hifi.err); first passes $(sed 's/^.warpalign [0-9.]*. //' $OUT/hifi.err | awk '/^first pass:/ { s += $3 } END { print s }') s wall; $(sum $OUT/hifi.err)"
echo "all $((SECONDS - t0)) s"
