#!/usr/bin/env bash
# call 1: mg_lchain_rmq by the fill without krmq's trees (patch 0013) against the same build with the RMQ by the
# trees (minimap2-trees, the twin's krmq) and the reference: the 333 Mb genome (prebuilt index) and E. coli with
# 200 Mb of UL-profile reads, without -c (3 and 2 rounds) and with -c (1 round); H. pylori asm5 (rmq chaining)
exec > >(tee "$OUT/log.txt") 2>&1
B=$PWD/target/benchcarry D=$B/data w=/tmp/w
mkdir -p $w
nvidia-smi --query-gpu=name --format=csv,noheader
t0=$SECONDS
$B/bin/gen genome --seed 7 --repeat-frac 39 --copy-div 0-0.3 -o $w/g.fa $D/ecoli_K12_MG1655.fasta.gz $D/hpylori_G27.fasta.gz \
  $D/hpylori_SJM180.fasta.gz $D/B_anthracis_Mslice.fasta.gz $D/D_melanogaster_2Rslice.fasta.gz
$B/tools/minimap2-ref -t16 -x map-ont -d $w/g.mmi $w/g.fa 2> $w/idx.err
$B/bin/gen reads --ref $w/g.fa --seed 7 --profile $D/ecoli_ultralong_R9_nanotest.fastq.gz --bases 200000000 -o $w/r.fq --stats $w/r.stats
$B/bin/gen reads --ref $D/ecoli_K12_MG1655.fasta.gz --seed 7 --profile $D/ecoli_ultralong_R9_nanotest.fastq.gz --bases 200000000 -o $w/r200.fq --stats $w/r200.stats
gunzip -c $D/ecoli_K12_MG1655.fasta.gz > $w/ec.fa
echo "inputs $((SECONDS - t0)) s"
head -c 200000 $w/g.fa > $w/warm.fa
WARPALIGN_BACKEND=gpu $B/tools/minimap2 -t16 -x map-ont -c $w/warm.fa $w/warm.fa > /dev/null 2>&1
rt() { sed -n 's/.*Real time: \([0-9.]*\) sec; CPU: \([0-9.]*\) sec; Peak RSS: \([0-9.]*\) GB.*/\1 s, CPU \2 s, RSS \3 GB/p' "$1"; }
run() { # label target query rounds options...
  local label=$1 ref=$2 q=$3 rounds=$4; shift 4
  for round in $(seq $rounds); do
    $B/tools/minimap2-ref -t16 "$@" $ref $q > $w/ref.out 2> $w/ref.err
    line="$label round $round: ref $(rt $w/ref.err)"
    for v in minimap2 minimap2-trees; do
      $B/tools/$v -t16 "$@" $ref $q > $w/on.out 2> $w/on.err
      cmp -s $w/ref.out $w/on.out && s=identical || s=DIFFERENT
      line="$line | $v $(rt $w/on.err) $s"
    done
    echo "$line"
  done
}
run "333Mb noc" $w/g.mmi $w/r.fq 3 -x map-ont
run "ecoli noc" $w/ec.fa $w/r200.fq 2 -x map-ont
run "333Mb -c" $w/g.mmi $w/r.fq 1 -x map-ont -c
run "ecoli -c" $w/ec.fa $w/r200.fq 1 -x map-ont -c
run "hpylori asm5 -c" $D/hpylori_G27.fasta.gz $D/hpylori_SJM180.fasta.gz 2 -x asm5 -c
WARPALIGN_TRACE=1 $B/tools/minimap2 -t16 -x map-ont $w/g.mmi $w/r.fq 2> $OUT/trace.noc.err > /dev/null
