#!/usr/bin/env bash
# call 15 (a0cb3f7): the ksw kernels alone on dumped real jobs (16 Mb of E. coli UL reads, map-ont -c; 16 Mb of
# HiFi-profile reads, map-hifi -c) under bench/ksw, with 4, 8 (the default) and 16 band-window cells per thread
# (WARPALIGN_KSW_GPU_CELLS), every output checked against upstream; the kernels' registers and memory
exec > >(tee "$OUT/log.txt") 2>&1
B=$PWD/target/benchcarry D=$B/data w=/tmp/w ec=$B/data/ecoli_K12_MG1655.fasta.gz
mkdir -p $w
for c in $B/tools/warpalign-kernels/ksw-*.cubin; do echo "$c"; cuobjdump --dump-resource-usage $c 2>&1 | grep -E "Function|REG" | head -12; done
$B/bin/gen reads --ref $ec --seed 7 --mode hifi --profile $D/ecoli_sequel_clr_subreads.fastq.gz --len 15000 --bases 16000000 -o $w/hifi.fq > /dev/null 2>&1
$B/bin/gen reads --ref $ec --seed 7 --profile $D/ecoli_ultralong_R9_nanotest.fastq.gz --bases 16000000 -o $w/r16.fq > /dev/null 2>&1
for x in "ul map-ont $w/r16.fq" "hifi map-hifi $w/hifi.fq"; do
  set -- $x
  WARPALIGN_KSW_DUMP=$w/$1.dump $B/tools/minimap2 -t16 -x $2 -c $ec $3 > /dev/null 2> /dev/null
  for cells in 4 8 16; do
    echo "== $1 cells $cells"
    WARPALIGN_KSW_GPU_CELLS=$cells $B/bin/ksw --reps 3 --sample 500 $w/$1.dump 2>&1 | grep -E "\(d\)|\(a\)|mismatch|differ"
  done
done
