#!/usr/bin/env bash
# call 11 (parts by mode: 16 Mb without ksw speculation, 8 Mb with it): without -c, E. coli with 200 and 500 Mb
# of UL reads and the 333 Mb genome with 200 Mb, the new default against 8 Mb parts; with -c, E. coli 200 Mb,
# the 333 Mb genome and 100 Mb of HiFi-profile reads, 8 Mb parts (the default) against 4 Mb; reference first,
# every output compared
exec > >(tee "$OUT/log.txt") 2>&1
B=$PWD/target/benchcarry D=$B/data w=/tmp/w ec=$B/data/ecoli_K12_MG1655.fasta.gz
mkdir -p $w
t0=$SECONDS
$B/bin/gen genome --seed 7 --repeat-frac 39 --copy-div 0-0.3 -o $w/g.fa $ec $D/hpylori_G27.fasta.gz \
  $D/hpylori_SJM180.fasta.gz $D/B_anthracis_Mslice.fasta.gz $D/D_melanogaster_2Rslice.fasta.gz > /dev/null 2>&1
$B/tools/minimap2-ref -t16 -x map-ont -d $w/g.mmi $w/g.fa 2> $w/idx.err
$B/bin/gen reads --ref $w/g.fa --seed 7 --profile $D/ecoli_ultralong_R9_nanotest.fastq.gz --bases 200000000 -o $w/g200.fq > /dev/null 2>&1
$B/bin/gen reads --ref $ec --seed 7 --profile $D/ecoli_ultralong_R9_nanotest.fastq.gz --bases 500000000 -o $w/r500.fq > /dev/null 2>&1
$B/bin/gen reads --ref $ec --seed 7 --profile $D/ecoli_ultralong_R9_nanotest.fastq.gz --bases 200000000 -o $w/r200.fq > /dev/null 2>&1
$B/bin/gen reads --ref $ec --seed 7 --mode hifi --profile $D/ecoli_sequel_clr_subreads.fastq.gz --len 15000 --bases 100000000 -o $w/hifi.fq > /dev/null 2>&1
echo "inputs $((SECONDS - t0)) s"
gunzip -c $ec | head -c 100000 > $w/warm.fa
WARPALIGN_BACKEND=gpu $B/tools/minimap2 -t16 -x map-ont -c $w/warm.fa $w/warm.fa > /dev/null 2>&1
rt() { sed -n 's/.*Real time: \([0-9.]*\) sec; CPU: \([0-9.]*\) sec; Peak RSS: \([0-9.]*\) GB.*/\1 s, CPU \2 s, RSS \3 GB/p' "$1"; }
# cmp LABEL TARGET QUERY "OTHER-ENV" ARGS...: reference, then the default and OTHER-ENV twice each, alternating
cmpr() {
  local label=$1 tgt=$2 q=$3 other=$4; shift 4
  $B/tools/minimap2-ref -t16 "$@" $tgt $q > $w/ref.out 2> $w/ref.err
  echo "$label ref: $(rt $w/ref.err)"
  for round in 1 2; do
    for e in X=1 "$other"; do
      env $e $B/tools/minimap2 -t16 "$@" $tgt $q > $w/new.out 2> $w/new.err
      cmp -s $w/ref.out $w/new.out && s=identical || s=DIFFERENT
      echo "$label round $round ${e/X=1/default}: $(rt $w/new.err) $s"
    done
  done
}
cmpr "ecoli 200Mb no-c" $ec $w/r200.fq WARPALIGN_BATCH_BASES=8000000 -x map-ont
cmpr "ecoli 500Mb no-c" $ec $w/r500.fq WARPALIGN_BATCH_BASES=8000000 -x map-ont
cmpr "333Mb 200Mb no-c" $w/g.mmi $w/g200.fq WARPALIGN_BATCH_BASES=8000000 -x map-ont
cmpr "ecoli 200Mb -c" $ec $w/r200.fq WARPALIGN_BATCH_BASES=4000000 -x map-ont -c
cmpr "333Mb 200Mb -c" $w/g.mmi $w/g200.fq WARPALIGN_BATCH_BASES=4000000 -x map-ont -c
cmpr "hifi 100Mb -c" $ec $w/hifi.fq WARPALIGN_BATCH_BASES=4000000 -x map-hifi -c
