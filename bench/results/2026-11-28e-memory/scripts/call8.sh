#!/usr/bin/env bash
# call 8 (experiment build of call 7): -c on E. coli, 200 Mb UL map-ont and 100 Mb HiFi map-hifi, with 8, 12 and 16
# mapping threads (is the GPU's host work starved of cores while the mapping threads run?), two rounds
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
  for round in 1 2; do
    for t in 16 12 8 6; do
      $B/tools/minimap2 -t$t -x $2 -c $ec $3 > $w/new.out 2> $w/new.err
      echo "$1 round $round -t$t: $(rt $w/new.err)"
    done
  done
done
WARPALIGN_TRACE=1 WARPALIGN_KSW_GPU_PROFILE=1 $B/tools/minimap2 -t8 -x map-ont -c $ec $w/r200.fq > /dev/null 2> $OUT/ul.t8.trace.err
echo "ul -t8 traced: $(rt $OUT/ul.t8.trace.err)"
