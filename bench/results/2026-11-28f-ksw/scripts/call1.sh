#!/usr/bin/env bash
# call 1: where the ksw DP kernel's time goes (ncu on bench/ksw's launches, 8 and 16 window cells a thread);
# the ksw tests (random and trap families, dumps) with 16 cells; -c end to end with 8 and 16 cells
exec > >(tee "$OUT/log.txt") 2>&1
B=$PWD/target/benchcarry D=$B/data w=/tmp/w ec=$B/data/ecoli_K12_MG1655.fasta.gz
mkdir -p $w
t0=$SECONDS
$B/bin/gen reads --ref $ec --seed 7 --mode hifi --profile $D/ecoli_sequel_clr_subreads.fastq.gz --len 15000 --bases 16000000 -o $w/hifi16.fq > /dev/null 2>&1
$B/bin/gen reads --ref $ec --seed 7 --profile $D/ecoli_ultralong_R9_nanotest.fastq.gz --bases 16000000 -o $w/r16.fq > /dev/null 2>&1
$B/bin/gen reads --ref $ec --seed 7 --profile $D/ecoli_ultralong_R9_nanotest.fastq.gz --bases 200000000 -o $w/r200.fq > /dev/null 2>&1
$B/bin/gen reads --ref $ec --seed 7 --mode hifi --profile $D/ecoli_sequel_clr_subreads.fastq.gz --len 15000 --bases 100000000 -o $w/hifi.fq > /dev/null 2>&1
$B/bin/gen reads --ref $ec --seed 7 --spliced --genes 2000 --profile $D/ecoli_R9_medaka_test_reads.fasta.gz --bases 40000000 -o $w/splice.fq > /dev/null 2>&1
echo "inputs $((SECONDS - t0)) s"
WARPALIGN_KSW_DUMP=$w/ul.dump $B/tools/minimap2 -t16 -x map-ont -c $ec $w/r16.fq > /dev/null 2> /dev/null
ls -la $w/ul.dump
for c in 8 16; do
  echo "== ncu, cells $c"
  WARPALIGN_KSW_GPU_CELLS=$c timeout 200 ncu --clock-control none --kernel-name regex:'ksw_extd2_dp$' --launch-count 4 \
    --section SpeedOfLight --section Occupancy --section WarpStateStats --section SchedulerStats --section LaunchStats \
    --section ComputeWorkloadAnalysis --section InstructionStats $B/bin/ksw --reps 1 --sample 100 $w/ul.dump > $OUT/ncu$c.txt 2>&1
  grep -E "Block Size|Grid Size|Duration|Registers|Achieved Occupancy|Theoretical Occupancy|Issue Slots Busy|Executed Ipc Active|No Eligible|Stall|Warp Cycles Per Issued|Block Limit|Active Warps Per Scheduler|Eligible Warps" $OUT/ncu$c.txt | head -60
done
rt() { sed -n 's/.*Real time: \([0-9.]*\) sec; CPU: \([0-9.]*\) sec; Peak RSS: \([0-9.]*\) GB.*/\1 s, CPU \2 s, RSS \3 GB/p' "$1"; }
gunzip -c $ec | head -c 100000 > $w/warm.fa
WARPALIGN_BACKEND=gpu $B/tools/minimap2 -t16 -x map-ont -c $w/warm.fa $w/warm.fa > /dev/null 2>&1
cmpr() { # LABEL QUERY ARGS...
  local label=$1 q=$2; shift 2
  $B/tools/minimap2-ref -t16 "$@" $ec $q > $w/ref.out 2> $w/ref.err
  echo "$label ref: $(rt $w/ref.err)"
  for round in 1 2; do
    for c in 8 16; do
      WARPALIGN_KSW_GPU_CELLS=$c $B/tools/minimap2 -t16 "$@" $ec $q > $w/new.out 2> $w/new.err
      cmp -s $w/ref.out $w/new.out && s=identical || s=DIFFERENT
      echo "$label round $round cells $c: $(rt $w/new.err) $s"
    done
  done
}
cmpr "ecoli 200Mb -c" $w/r200.fq -x map-ont -c
cmpr "hifi 100Mb -c" $w/hifi.fq -x map-hifi -c
cmpr "splice 40Mb -c" $w/splice.fq -x splice -c
echo "== ksw tests, cells 16"
TOOLS=$B/tools WARPALIGN_DATA=$D WARPALIGN_BACKEND=gpu WARPALIGN_KSW_GPU_CELLS=16 timeout 250 $B/bin/ksw-tests --test-threads=4 2>&1 | grep -E "^test |test result|skipped|panicked|FAILED" | tail -40
