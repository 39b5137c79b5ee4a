#!/usr/bin/env bash
# call 9 (728c0ce): parts of 8 Mb (the default) against 16 Mb (WARPALIGN_BATCH_BASES=16000000) without -c, E. coli
# and the 333 Mb genome, two rounds each after the reference
exec > >(tee "$OUT/log.txt") 2>&1
B=$PWD/target/benchcarry D=$B/data w=/tmp/w
mkdir -p $w
$B/bin/gen genome --seed 7 --repeat-frac 39 --copy-div 0-0.3 -o $w/g.fa $D/ecoli_K12_MG1655.fasta.gz $D/hpylori_G27.fasta.gz \
  $D/hpylori_SJM180.fasta.gz $D/B_anthracis_Mslice.fasta.gz $D/D_melanogaster_2Rslice.fasta.gz
$B/tools/minimap2-ref -t16 -x map-ont -d $w/g.mmi $w/g.fa 2> $w/idx.err
$B/bin/gen reads --ref $w/g.fa --seed 7 --profile $D/ecoli_ultralong_R9_nanotest.fastq.gz --bases 200000000 -o $w/r.fq --stats $w/r.stats
ec=$D/ecoli_K12_MG1655.fasta.gz
$B/bin/gen reads --ref $ec --seed 7 --profile $D/ecoli_ultralong_R9_nanotest.fastq.gz --bases 200000000 -o $w/r200.fq --stats $w/r200.stats
head -c 200000 $w/g.fa > $w/warm.fa
WARPALIGN_BACKEND=gpu $B/tools/minimap2 -t16 -x map-ont -c $w/warm.fa $w/warm.fa > /dev/null 2>&1
rt() { sed -n 's/.*Real time: \([0-9.]*\) sec; CPU: \([0-9.]*\) sec; Peak RSS: \([0-9.]*\) GB.*/\1 s, CPU \2 s, RSS \3 GB/p' "$1"; }
for x in "ecoli $ec $w/r200.fq" "genome $w/g.mmi $w/r.fq"; do
  set -- $x
  $B/tools/minimap2-ref -t16 -x map-ont $2 $3 > $w/ref.out 2> $w/ref.err
  echo "$1 ref: $(rt $w/ref.err)"
  for round in 1 2; do
    for parts in 8000000 16000000; do
      WARPALIGN_BATCH_BASES=$parts $B/tools/minimap2 -t16 -x map-ont $2 $3 > $w/on.out 2> $w/on.err
      cmp -s $w/ref.out $w/on.out && s=identical || s=DIFFERENT
      echo "$1 round $round parts $parts: $(rt $w/on.err) $s"
    done
  done
done
