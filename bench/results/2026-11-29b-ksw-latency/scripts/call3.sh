#!/usr/bin/env bash
# call 3: why the spliced reads' long thin exts2 jobs (windows of 128-256 cells, thousands of anti-diagonals)
# run at 1 GCUPS: Nsight Compute's stall reasons on the one-warp exts2 DP in minimap2's splice -c run (5 Mb).
exec > >(tee "$OUT/log.txt") 2>&1
B=$PWD/target/benchcarry D=$B/data w=/tmp/w ec=$B/data/ecoli_K12_MG1655.fasta.gz
mkdir -p $w
[ -s $w/splice.fq ] || $B/bin/gen reads --ref $ec --seed 7 --spliced --genes 2000 --profile $D/ecoli_R9_medaka_test_reads.fasta.gz --bases 40000000 -o $w/splice.fq > /dev/null 2>&1
head -n 20000 $w/splice.fq > $w/sp5.fq
NCU=$(which ncu 2>/dev/null || ls /opt/nvidia/nsight-compute/*/ncu /usr/local/cuda/bin/ncu 2>/dev/null | head -1)
WARPALIGN_BACKEND=gpu timeout 400 $NCU --clock-control none -k regex:'ksw_exts2_dpw[124]' --launch-count 8 \
  --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section SchedulerStats \
  --metrics regex:'smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio',smsp__inst_executed.sum,smsp__cycles_active.avg,sm__cycles_elapsed.max,gpu__time_duration.sum \
  $B/tools/minimap2 -t16 -x splice -c $ec $w/sp5.fq 2> $OUT/ncu.err | grep -v $'\t' > $OUT/ncu.report.txt
echo "ncu rc $?"
tail -3 $OUT/ncu.err
grep -E "ksw_|Duration|Registers Per|Block Size|Grid Size|Achieved Occupancy|Warp Cycles Per Issued|Issue Slots Busy|inst_executed|stalled_(long_scoreboard|short_scoreboard|wait|math_pipe|barrier|not_selected|no_instruction|lg_throttle|mio_throttle|branch_resolving|dispatch|selected)" $OUT/ncu.report.txt | head -200
