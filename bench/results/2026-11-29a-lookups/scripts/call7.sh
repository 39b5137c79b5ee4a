#!/usr/bin/env bash
# call 7: where a ksw launch's host time goes (WARPALIGN_KSW_GPU_PROFILE=1 with the upload phase split: small
# copies from pageable memory, the image's copy, allocations, launches, the wait for the image's copy; a staging
# slot's wait in the packing), E. coli UL 200 Mb -c and HiFi 100 Mb -c, traced.
exec > >(tee "$OUT/log.txt") 2>&1
B=$PWD/target/benchcarry D=$B/data w=/tmp/w ec=$B/data/ecoli_K12_MG1655.fasta.gz
mkdir -p $w
[ -s $w/r200.fq ] || $B/bin/gen reads --ref $ec --seed 7 --profile $D/ecoli_ultralong_R9_nanotest.fastq.gz --bases 200000000 -o $w/r200.fq > /dev/null 2>&1 &
p2=$!
[ -s $w/hifi.fq ] || $B/bin/gen reads --ref $ec --seed 7 --mode hifi --profile $D/ecoli_sequel_clr_subreads.fastq.gz --len 15000 --bases 100000000 -o $w/hifi.fq > /dev/null 2>&1 &
p3=$!
wait $p2 $p3
gunzip -c $ec | head -c 100000 > $w/warm.fa
WARPALIGN_BACKEND=gpu $B/tools/minimap2 -t16 -x map-ont -c $w/warm.fa $w/warm.fa > /dev/null 2>&1
WARPALIGN_KSW_GPU_PROFILE=1 WARPALIGN_TRACE=1 $B/tools/minimap2 -t16 -x map-ont -c $ec $w/r200.fq > /dev/null 2> $OUT/ecoli.err
grep -o 'Real time.*' $OUT/ecoli.err
WARPALIGN_KSW_GPU_PROFILE=1 WARPALIGN_TRACE=1 $B/tools/minimap2 -t16 -x map-hifi -c $ec $w/hifi.fq > /dev/null 2> $OUT/hifi.err
grep -o 'Real time.*' $OUT/hifi.err
