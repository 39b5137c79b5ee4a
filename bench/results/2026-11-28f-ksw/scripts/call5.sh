#!/usr/bin/env bash
# call 5: 8 processes x -t2 (E. coli, 25 Mb of UL reads each, no -c and -c) traced: which parts ran on the GPU,
# and when each process's GPU was ready; then ncu on bench/ksw's first 12 ksw_extd2_dp launches (the large
# 512-cell group among them) with 16 cells
exec > >(tee "$OUT/log.txt") 2>&1
B=$PWD/target/benchcarry D=$B/data w=/tmp/w ec=$B/data/ecoli_K12_MG1655.fasta.gz
mkdir -p $w
$B/bin/gen reads --ref $ec --seed 7 --profile $D/ecoli_ultralong_R9_nanotest.fastq.gz --bases 200000000 -o $w/r200.fq > /dev/null 2>&1
$B/bin/gen reads --ref $ec --seed 7 --profile $D/ecoli_ultralong_R9_nanotest.fastq.gz --bases 16000000 -o $w/r16.fq > /dev/null 2>&1
awk -v w=$w 'NR % 4 == 1 { p = int((NR - 1) / 4) % 8 } { print > (w "/piece" p ".fq") }' $w/r200.fq
gunzip -c $ec | head -c 100000 > $w/warm.fa
WARPALIGN_BACKEND=gpu $B/tools/minimap2 -t16 -x map-ont -c $w/warm.fa $w/warm.fa > /dev/null 2>&1
rt() { sed -n 's/.*Real time: \([0-9.]*\) sec; CPU: \([0-9.]*\) sec; Peak RSS: \([0-9.]*\) GB.*/\1 s, CPU \2 s, RSS \3 GB/p' "$1"; }
for opts in "" "-c"; do
  for v in minimap2-ref minimap2; do
    t0=$(date +%s.%N) pids=()
    for p in 0 1 2 3 4 5 6 7; do
      WARPALIGN_TRACE=1 $B/tools/$v -t2 -x map-ont $opts $ec $w/piece$p.fq > $w/$v.p$p.out 2> $w/$v.p$p.err & pids+=($!)
    done
    for pid in "${pids[@]}"; do wait $pid; done
    echo "ecoli 8 x -t2 ${opts:-noc} $v: $(awk -v a=$t0 -v b=$(date +%s.%N) 'BEGIN { printf "%.2f", b - a }') s wall"
    for p in 0 1 2 3 4 5 6 7; do echo "== piece $p ${opts:-noc} $v: $(rt $w/$v.p$p.err)"; cat $w/$v.p$p.err; done >> $OUT/traces${opts:-noc}.txt
  done
  d=0; for p in 0 1 2 3 4 5 6 7; do cmp -s $w/minimap2-ref.p$p.out $w/minimap2.p$p.out || d=$((d + 1)); done
  echo "ecoli 8 x -t2 ${opts:-noc}: $d outputs differ"
done
WARPALIGN_KSW_DUMP=$w/ul.dump $B/tools/minimap2 -t16 -x map-ont -c $ec $w/r16.fq > /dev/null 2> /dev/null
for c in $B/tools/warpalign-kernels/ksw-*.cubin; do cuobjdump --dump-resource-usage $c 2>&1 | grep -A1 "ksw_extd2_dp$\|ksw_extd2_dp " | head -4; done 2>/dev/null | head -20
timeout 240 ncu --clock-control none --kernel-name regex:'ksw_extd2_dp$' --launch-count 12 \
  --section SpeedOfLight --section Occupancy --section WarpStateStats --section SchedulerStats --section LaunchStats \
  --section InstructionStats $B/bin/ksw --reps 1 --sample 100 $w/ul.dump > $OUT/ncu16.txt 2>&1
grep -E "ksw_extd2_dp \(|Duration|Registers|Achieved Occupancy|Issue Slots Busy|No Eligible|Active Warps Per Scheduler|Eligible Warps|Warp Cycles Per Issued|Avg. Active Threads" $OUT/ncu16.txt | head -130
