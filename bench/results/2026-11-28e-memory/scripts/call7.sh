#!/usr/bin/env bash
# call 7 (experiment build, not committed: WA_EXP_CHUNK = calls per compute chunk (32768), WA_EXP_DEPTH = chunks computed at once (1),
# WA_EXP_SPLIT as in call 6): -c on E. coli, 200 Mb UL map-ont and 100 Mb HiFi map-hifi,
# two rounds after the reference
exec > >(tee "$OUT/log.txt") 2>&1
B=$PWD/target/benchcarry D=$B/data w=/tmp/w ec=$B/data/ecoli_K12_MG1655.fasta.gz
mkdir -p $w
$B/bin/gen reads --ref $ec --seed 7 --mode hifi --profile $D/ecoli_sequel_clr_subreads.fastq.gz --len 15000 --bases 100000000 -o $w/hifi.fq > /dev/null 2>&1
$B/bin/gen reads --ref $ec --seed 7 --profile $D/ecoli_ultralong_R9_nanotest.fastq.gz --bases 200000000 -o $w/r200.fq > /dev/null 2>&1
gunzip -c $ec | head -c 100000 > $w/warm.fa
WARPALIGN_BACKEND=gpu $B/tools/minimap2 -t16 -x map-ont -c $w/warm.fa $w/warm.fa > /dev/null 2>&1
rt() { sed -n 's/.*Real time: \([0-9.]*\) sec; CPU: \([0-9.]*\) sec; Peak RSS: \([0-9.]*\) GB.*/\1 s, CPU \2 s, RSS \3 GB/p' "$1"; }
for x in "ul map-ont $w/r200.fq" "hifi map-hifi $w/hifi.fq"; do
  set -- $x
  A="-t16 -x $2 -c $ec $3"
  $B/tools/minimap2-ref $A > $w/ref.out 2> $w/ref.err
  echo "$1 ref: $(rt $w/ref.err)"
  for round in 1 2; do
    for e in X=1 "WA_EXP_CHUNK=8192 WA_EXP_DEPTH=2" "WA_EXP_CHUNK=6000 WA_EXP_DEPTH=3" "WA_EXP_CHUNK=4096 WA_EXP_DEPTH=4" "WA_EXP_CHUNK=6000 WA_EXP_DEPTH=3 WA_EXP_SPLIT=3"; do
      env $e $B/tools/minimap2 $A > $w/new.out 2> $w/new.err
      cmp -s $w/ref.out $w/new.out && s=identical || s=DIFFERENT
      echo "$1 round $round $e: $(rt $w/new.err) $s"
    done
  done
done
A="-t16 -x map-ont -c $ec $w/r200.fq"
WA_EXP_CHUNK=6000 WA_EXP_DEPTH=3 WARPALIGN_TRACE=1 WARPALIGN_KSW_GPU_PROFILE=1 $B/tools/minimap2 $A > /dev/null 2> $OUT/ul.chunk6000.trace.err
echo "ul traced CHUNK=6000 DEPTH=3: $(rt $OUT/ul.chunk6000.trace.err)"
