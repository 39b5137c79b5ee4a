#!/usr/bin/env bash
# call 3: minimap2's seeding on a stream of the highest priority (tools/minimap2) against the default priority
# (tools/minimap2-prev, run with 16 cells as the new default); -c and no -c on E. coli 200 Mb UL, HiFi, splice,
# the 333 Mb genome; then a traced run of each (the map step's seed waits and first passes)
exec > >(tee "$OUT/log.txt") 2>&1
B=$PWD/target/benchcarry D=$B/data w=/tmp/w ec=$B/data/ecoli_K12_MG1655.fasta.gz
mkdir -p $w
t0=$SECONDS
$B/bin/gen genome --seed 7 --repeat-frac 39 --copy-div 0-0.3 -o $w/g.fa $ec $D/hpylori_G27.fasta.gz \
  $D/hpylori_SJM180.fasta.gz $D/B_anthracis_Mslice.fasta.gz $D/D_melanogaster_2Rslice.fasta.gz > /dev/null 2>&1
$B/tools/minimap2-ref -t16 -x map-ont -d $w/g.mmi $w/g.fa 2> $w/idx.err
$B/bin/gen reads --ref $w/g.fa --seed 7 --profile $D/ecoli_ultralong_R9_nanotest.fastq.gz --bases 200000000 -o $w/g200.fq > /dev/null 2>&1
$B/bin/gen reads --ref $ec --seed 7 --profile $D/ecoli_ultralong_R9_nanotest.fastq.gz --bases 200000000 -o $w/r200.fq > /dev/null 2>&1
$B/bin/gen reads --ref $ec --seed 7 --mode hifi --profile $D/ecoli_sequel_clr_subreads.fastq.gz --len 15000 --bases 100000000 -o $w/hifi.fq > /dev/null 2>&1
$B/bin/gen reads --ref $ec --seed 7 --spliced --genes 2000 --profile $D/ecoli_R9_medaka_test_reads.fasta.gz --bases 40000000 -o $w/splice.fq > /dev/null 2>&1
echo "inputs $((SECONDS - t0)) s"
gunzip -c $ec | head -c 100000 > $w/warm.fa
WARPALIGN_BACKEND=gpu $B/tools/minimap2 -t16 -x map-ont -c $w/warm.fa $w/warm.fa > /dev/null 2>&1
rt() { sed -n 's/.*Real time: \([0-9.]*\) sec; CPU: \([0-9.]*\) sec; Peak RSS: \([0-9.]*\) GB.*/\1 s, CPU \2 s, RSS \3 GB/p' "$1"; }
export WARPALIGN_KSW_GPU_CELLS=16
cmpr() { # LABEL TARGET QUERY ARGS...
  local label=$1 tgt=$2 q=$3; shift 3
  $B/tools/minimap2-ref -t16 "$@" $tgt $q > $w/ref.out 2> $w/ref.err
  echo "$label ref: $(rt $w/ref.err)"
  for round in 1 2; do
    for v in minimap2 minimap2-prev; do
      $B/tools/$v -t16 "$@" $tgt $q > $w/new.out 2> $w/new.err
      cmp -s $w/ref.out $w/new.out && s=identical || s=DIFFERENT
      echo "$label round $round $v: $(rt $w/new.err) $s"
    done
  done
}
cmpr "ecoli 200Mb -c" $ec $w/r200.fq -x map-ont -c
cmpr "ecoli 200Mb" $ec $w/r200.fq -x map-ont
cmpr "333Mb 200Mb -c" $w/g.mmi $w/g200.fq -x map-ont -c
cmpr "hifi 100Mb -c" $ec $w/hifi.fq -x map-hifi -c
cmpr "splice 40Mb -c" $ec $w/splice.fq -x splice -c
for v in minimap2 minimap2-prev; do
  WARPALIGN_TRACE=1 $B/tools/$v -t16 -x map-ont -c $ec $w/r200.fq > /dev/null 2> $OUT/ul.$v.trace.err
  echo "ul traced $v: $(rt $OUT/ul.$v.trace.err)"
done
