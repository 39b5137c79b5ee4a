#!/usr/bin/env bash
# call 9 (experiment build of call 7): the ksw engine alone on the jobs of 16 Mb of E. coli UL reads (map-ont -c)
# and of 16 Mb of HiFi-profile reads (map-hifi -c), dumped by the rebuilt minimap2 (WARPALIGN_KSW_DUMP), timed by
# bench/ksw (upstream on 16 threads vs the GPU, all jobs in one batch call, transfers included), launches profiled
exec > >(tee "$OUT/log.txt") 2>&1
B=$PWD/target/benchcarry D=$B/data w=/tmp/w ec=$B/data/ecoli_K12_MG1655.fasta.gz
mkdir -p $w
$B/bin/gen reads --ref $ec --seed 7 --mode hifi --profile $D/ecoli_sequel_clr_subreads.fastq.gz --len 15000 --bases 16000000 -o $w/hifi.fq > /dev/null 2>&1
$B/bin/gen reads --ref $ec --seed 7 --profile $D/ecoli_ultralong_R9_nanotest.fastq.gz --bases 16000000 -o $w/r16.fq > /dev/null 2>&1
for x in "ul map-ont $w/r16.fq" "hifi map-hifi $w/hifi.fq"; do
  set -- $x
  WARPALIGN_KSW_DUMP=$w/$1.dump $B/tools/minimap2 -t16 -x $2 -c $ec $3 > /dev/null 2> $w/$1.dump.err
  ls -la $w/$1.dump
  WARPALIGN_KSW_GPU_PROFILE=1 $B/bin/ksw --reps 3 $w/$1.dump > $OUT/$1.ksw.txt 2> $OUT/$1.ksw.err
  grep -v "^ksw gpu" $OUT/$1.ksw.txt | tail -20
done
