#!/usr/bin/env bash
# call 3: the seed launch's results in one copy each into one page-locked buffer: the seed GPU tests, then without
# -c the 333 Mb genome and E. coli with 200 Mb of reads, reference and rebuilt (parts of 8 Mb, and of 16 Mb through
# WARPALIGN_BATCH_BASES), one profiled run each
exec > >(tee "$OUT/log.txt") 2>&1
B=$PWD/target/benchcarry D=$B/data w=/tmp/w
mkdir -p $w
nvidia-smi --query-gpu=name --format=csv,noheader
(cd target/seedprof && WARPALIGN_DATA=$PWD/data ./seed gpu:: 2>&1 | grep -E "^test |result|panicked" > $OUT/seedtests.txt; tail -1 $OUT/seedtests.txt)
$B/bin/gen genome --seed 7 --repeat-frac 39 --copy-div 0-0.3 -o $w/g.fa $D/ecoli_K12_MG1655.fasta.gz $D/hpylori_G27.fasta.gz \
  $D/hpylori_SJM180.fasta.gz $D/B_anthracis_Mslice.fasta.gz $D/D_melanogaster_2Rslice.fasta.gz
$B/tools/minimap2-ref -t16 -x map-ont -d $w/g.mmi $w/g.fa 2> $w/idx.err
$B/bin/gen reads --ref $w/g.fa --seed 7 --profile $D/ecoli_ultralong_R9_nanotest.fastq.gz --bases 200000000 -o $w/r.fq --stats $w/r.stats
$B/bin/gen reads --ref $D/ecoli_K12_MG1655.fasta.gz --seed 7 --profile $D/ecoli_ultralong_R9_nanotest.fastq.gz --bases 200000000 -o $w/r200.fq --stats $w/r200.stats
gunzip -c $D/ecoli_K12_MG1655.fasta.gz > $w/ec.fa
head -c 200000 $w/g.fa > $w/warm.fa
WARPALIGN_BACKEND=gpu $B/tools/minimap2 -t16 -x map-ont -c $w/warm.fa $w/warm.fa > /dev/null 2>&1
rt() { sed -n 's/.*Real time: \([0-9.]*\) sec; CPU: \([0-9.]*\) sec; Peak RSS: \([0-9.]*\) GB.*/\1 s, CPU \2 s, RSS \3 GB/p' "$1"; }
for ref in g.mmi ec.fa; do
  q=r.fq; [ $ref = ec.fa ] && q=r200.fq
  $B/tools/minimap2-ref -t16 -x map-ont $w/$ref $w/$q > $w/ref.out 2> $w/ref.err
  echo "$ref ref: $(rt $w/ref.err)"
  for rep in 1 2; do for bb in 8000000 16000000; do
    WARPALIGN_BATCH_BASES=$bb $B/tools/minimap2 -t16 -x map-ont $w/$ref $w/$q > $w/on.out 2> $w/on.err
    cmp -s $w/ref.out $w/on.out && s=identical || s=DIFFERENT
    echo "$ref parts $bb: $(rt $w/on.err) $s"
    grep -h 'seeded in one batch' $w/on.err | awk '{ n += $2; s += $(NF-1) } END { print "  seed batches:", NR, "reads", n, "sec", s }'
  done; done
  WARPALIGN_SEED_GPU_PROFILE=1 $B/tools/minimap2 -t16 -x map-ont $w/$ref $w/$q > $w/on.out 2> $OUT/profile.$ref.err
  grep "^seed gpu" $OUT/profile.$ref.err | head -4
done
