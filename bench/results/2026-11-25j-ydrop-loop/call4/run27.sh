#!/usr/bin/env bash
# device call 4 (session 18, at 02e273e): the CPU topology; H. pylori with pools of 15 (default), 11 and 7
# workers (lastz-w11, lastz-w7: warpalign_ydrop_ahead_create (11) and (7)), interleaved, 3 runs each
set -u
C=$(dirname "$(realpath "$0")"); O=${OUT:-/tmp/o}; mkdir -p $O; W=/tmp/w27; mkdir -p $W; d=$C/data
{ lscpu; lscpu -e; cat /sys/devices/system/cpu/cpu*/topology/thread_siblings_list | sort | uniq -c; } > $O/topology.txt 2>&1
grep -E "Model name|Thread|Core|Socket|^CPU\(s\)|Hypervisor|Virtualization" $O/topology.txt
zcat $d/hpylori_G27.fasta.gz > $W/g27.fa; zcat $d/hpylori_SJM180.fasta.gz > $W/sjm.fa
for k in 1 2 3; do
  for v in lastz lastz-w11 lastz-w7; do
    s=$(date +%s.%N); WARPALIGN_STATS=1 $C/tools/$v $W/g27.fa $W/sjm.fa > $W/hp.out 2> $W/hp.err
    echo "$v run $k: rc $? $(awk -v a=$s -v b=$(date +%s.%N) 'BEGIN{print b-a}') s; output $(md5sum < $W/hp.out | cut -c1-32)"; grep -E "anchor loops|bookkeeping|ran itself" $W/hp.err | sed 's/^/    /'
  done
done 2>&1 | tee $O/pool-size.txt
