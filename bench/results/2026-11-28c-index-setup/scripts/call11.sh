#!/usr/bin/env bash
# call 11: the seed launch's page-locked result buffer freed after each launch (minimap2-free) against kept for the
# next launches (minimap2, 5dd2553), without -c: E. coli with 200 Mb of reads, three rounds, then the 333 Mb genome
exec > >(tee "$OUT/log.txt") 2>&1
B=$PWD/target/benchcarry D=$B/data w=/tmp/w
mkdir -p $w
nvidia-smi --query-gpu=name --format=csv,noheader
$B/bin/gen reads --ref $D/ecoli_K12_MG1655.fasta.gz --seed 7 --profile $D/ecoli_ultralong_R9_nanotest.fastq.gz --bases 200000000 -o $w/r200.fq --stats $w/r200.stats
gunzip -c $D/ecoli_K12_MG1655.fasta.gz > $w/ec.fa
WARPALIGN_BACKEND=gpu $B/tools/minimap2 -t16 -x map-ont -c $w/ec.fa $w/ec.fa > /dev/null 2>&1
rt() { sed -n 's/.*Real time: \([0-9.]*\) sec; CPU: \([0-9.]*\) sec; Peak RSS: \([0-9.]*\) GB.*/\1 s, CPU \2 s, RSS \3 GB/p' "$1"; }
run() { # ref q
  $B/tools/minimap2-ref -t16 -x map-ont $w/$1 $w/$2 > $w/ref.out 2> $w/ref.err
  line="$1 round $r: ref $(rt $w/ref.err)"
  for v in minimap2 minimap2-free; do
    $B/tools/$v -t16 -x map-ont $w/$1 $w/$2 > $w/on.out 2> $w/on.err
    cmp -s $w/ref.out $w/on.out && s=identical || s=DIFFERENT
    line="$line | $v $(rt $w/on.err) $s"
  done
  echo "$line"
}
for r in 1 2 3; do run ec.fa r200.fq; done
$B/bin/gen genome --seed 7 --repeat-frac 39 --copy-div 0-0.3 -o $w/g.fa $D/ecoli_K12_MG1655.fasta.gz $D/hpylori_G27.fasta.gz \
  $D/hpylori_SJM180.fasta.gz $D/B_anthracis_Mslice.fasta.gz $D/D_melanogaster_2Rslice.fasta.gz
$B/tools/minimap2-ref -t16 -x map-ont -d $w/g.mmi $w/g.fa 2> $w/idx.err
$B/bin/gen reads --ref $w/g.fa --seed 7 --profile $D/ecoli_ultralong_R9_nanotest.fastq.gz --bases 200000000 -o $w/r.fq --stats $w/r.stats
r=1; run g.mmi r.fq
