#!/usr/bin/env bash
# call 2: where the CPU goes by thread, and what the machine costs a lookup. The host's kernel; minor page faults
# and CPU per thread name (polled from /proc every 50 ms: minimap2's own workers live one step and show only in
# the process's total); bench ksw --cache on 20 Mb of the UL reads' extd2 calls by thread count, malloc's arenas
# default and 4.
exec > >(tee "$OUT/log.txt") 2>&1
B=$PWD/target/benchcarry D=$B/data w=/tmp/w ec=$B/data/ecoli_K12_MG1655.fasta.gz
mkdir -p $w
t0=$SECONDS
uname -a; grep -m1 "model name" /proc/cpuinfo; nproc
[ -s $w/r200.fq ] || $B/bin/gen reads --ref $ec --seed 7 --profile $D/ecoli_ultralong_R9_nanotest.fastq.gz --bases 200000000 -o $w/r200.fq > /dev/null 2>&1
echo "inputs $((SECONDS - t0)) s"
gunzip -c $ec | head -c 100000 > $w/warm.fa
WARPALIGN_BACKEND=gpu $B/tools/minimap2 -t16 -x map-ont -c $w/warm.fa $w/warm.fa > /dev/null 2>&1
poll() { # PID OUTFILE: the last stat line of every thread, and of the process
  local pid=$1 out=$2
  : > $out.t
  while kill -0 $pid 2>/dev/null; do
    cat /proc/$pid/task/*/stat >> $out.t 2>/dev/null
    cat /proc/$pid/stat > $out.p 2>/dev/null
    sleep 0.05
  done
  # per tid the last line; then CPU seconds by name (ticks of 1/100 s)
  awk '{ l[$1] = $0 } END { for (t in l) print l[t] }' $out.t | sed 's/^\([0-9]*\) (\(.*\)) \(.*\)$/\1 \2|\3/' | awk -F'|' '{ split($2, f, " "); n = $1; sub(/^[0-9]* /, "", n); gsub(/[0-9]+$/, "#", n); c[n] += (f[12] + f[13]) / 100; k[n]++ } END { for (n in c) printf "  %-20s threads %3d  CPU %7.2f s\n", n, k[n], c[n] }' | sort -k4 -nr > $out
  sed 's/^\([0-9]*\) (\(.*\)) \(.*\)$/\3/' $out.p | awk '{ printf "  process: minflt %d majflt %d utime %.2f stime %.2f s\n", $8, $10, $12 / 100, $13 / 100 }' >> $out
}
for v in minimap2-ref minimap2 minimap2-base; do
  $B/tools/$v -t16 -x map-ont -c $ec $w/r200.fq > $w/$v.out 2> $w/$v.err &
  pid=$!
  poll $pid $OUT/threads-$v.txt
  wait $pid
  echo "$v: $(grep -o 'Real time.*' $w/$v.err)"; cat $OUT/threads-$v.txt
done
cmp $w/minimap2-ref.out $w/minimap2.out && echo identical
head -n 4000 $w/r200.fq > $w/r20.fq
WARPALIGN_KSW_DUMP=$w/ul.dump $B/tools/minimap2 -t16 -x map-ont -c $ec $w/r20.fq > /dev/null 2>&1
ls -la $w/ul.dump
$B/bin/ksw --cache 1,4,8,16 $w/ul.dump
$B/bin/ksw --cache 1,4,8,16 --arenas 4 $w/ul.dump
echo "all $((SECONDS - t0)) s"
