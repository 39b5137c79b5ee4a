#!/usr/bin/env bash
# call 10 (experiment build, not committed: WA_EXP_NICE = nice value of the threads that drive the GPU's ksw work:
# the host pool, the group and lane threads, the computing threads): -c on E. coli, 200 Mb UL map-ont and 100 Mb
# HiFi map-hifi, -t16 at nice 0 (default), -5, -10, -19, and -t6, two rounds after the reference
exec > >(tee "$OUT/log.txt") 2>&1
id -u
B=$PWD/target/benchcarry D=$B/data w=/tmp/w ec=$B/data/ecoli_K12_MG1655.fasta.gz
mkdir -p $w
$B/bin/gen reads --ref $ec --seed 7 --mode hifi --profile $D/ecoli_sequel_clr_subreads.fastq.gz --len 15000 --bases 100000000 -o $w/hifi.fq > /dev/null 2>&1
$B/bin/gen reads --ref $ec --seed 7 --profile $D/ecoli_ultralong_R9_nanotest.fastq.gz --bases 200000000 -o $w/r200.fq > /dev/null 2>&1
gunzip -c $ec | head -c 100000 > $w/warm.fa
WARPALIGN_BACKEND=gpu $B/tools/minimap2 -t16 -x map-ont -c $w/warm.fa $w/warm.fa > /dev/null 2>&1
rt() { sed -n 's/.*Real time: \([0-9.]*\) sec; CPU: \([0-9.]*\) sec; Peak RSS: \([0-9.]*\) GB.*/\1 s, CPU \2 s, RSS \3 GB/p' "$1"; }
for x in "ul map-ont $w/r200.fq" "hifi map-hifi $w/hifi.fq"; do
  set -- $x
  $B/tools/minimap2-ref -t16 -x $2 -c $ec $3 > $w/ref.out 2> $w/ref.err
  echo "$1 ref: $(rt $w/ref.err)"
  for round in 1 2; do
    for e in "X=1 -t16" "WA_EXP_NICE=-5 -t16" "WA_EXP_NICE=-10 -t16" "WA_EXP_NICE=-19 -t16" "X=1 -t6"; do
      set -- $x
      env ${e% *} $B/tools/minimap2 ${e#* } -x $2 -c $ec $3 > $w/new.out 2> $w/new.err
      cmp -s $w/ref.out $w/new.out && s=identical || s=DIFFERENT
      echo "$1 round $round $e: $(rt $w/new.err) $s"
    done
  done
done
