#!/usr/bin/env bash
# call 11: what limits the ksw kernels in minimap2's run (issue 27): Nsight Compute on the one-warp extd2 DP
# (windows of 256 and 512 cells, the UL reads' gap fills) and the traceback kernel, in minimap2 mapping 20 Mb
# of the UL reads (-c), clocks left alone.
exec > >(tee "$OUT/log.txt") 2>&1
B=$PWD/target/benchcarry D=$B/data w=/tmp/w ec=$B/data/ecoli_K12_MG1655.fasta.gz
mkdir -p $w
[ -s $w/r200.fq ] || $B/bin/gen reads --ref $ec --seed 7 --profile $D/ecoli_ultralong_R9_nanotest.fastq.gz --bases 200000000 -o $w/r200.fq > /dev/null 2>&1
head -n 4000 $w/r200.fq > $w/r20.fq
which ncu || ls /opt/nvidia/nsight-compute/*/ncu
NCU=$(which ncu 2>/dev/null || ls /opt/nvidia/nsight-compute/*/ncu | head -1)
WARPALIGN_BACKEND=gpu timeout 400 $NCU --clock-control none -k regex:'ksw_extd2_dpw[24]|ksw_bt' --launch-skip 4 --launch-count 6 \
  --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section SchedulerStats --section ComputeWorkloadAnalysis \
  $B/tools/minimap2 -t16 -x map-ont -c $ec $w/r20.fq 2> $OUT/ncu.err | grep -v $'\t' > $OUT/ncu.report.txt
echo "ncu rc $?"
tail -5 $OUT/ncu.err
grep -E "ksw_|Duration|Achieved Occupancy|Theoretical Occupancy|Registers Per|Block Size|Grid Size|Compute \(SM\) Throughput|Memory Throughput|Issue Slots Busy|No Eligible|Warp Cycles Per Issued|Stall|Waves Per SM|Shared Memory Configuration Size|Block Limit" $OUT/ncu.report.txt | head -150
