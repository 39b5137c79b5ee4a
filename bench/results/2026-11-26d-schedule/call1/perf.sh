#!/usr/bin/env bash
# Session 21's speed check of LASTZ's schedule in Rust: this tree's lastz against the build of b3c8abb (the
# policy still in the C glue), interleaved; 16 processes at once; WARPALIGN_STATS of one run each.
set -u
C=$(dirname "$(realpath "$0")"); O=${OUT:-/tmp/o}; mkdir -p $O; W=/tmp/wp; mkdir -p $W; d=$C/data
zcat $d/hpylori_G27.fasta.gz > $W/g27.fa; zcat $d/hpylori_SJM180.fasta.gz > $W/sjm.fa
for k in 1 2 3; do
  for t in oldtools/lastz-b3c8abb tools/lastz; do
    /usr/bin/time -f "%e" -o $W/t $C/$t $W/g27.fa $W/sjm.fa > $W/out 2>/dev/null
    echo "$t run $k: $(cat $W/t) s, output $(md5sum < $W/out | cut -c1-12)"
  done
done | tee $O/lastz-old-new.txt
for t in oldtools/lastz-b3c8abb tools/lastz; do
  echo "== $t"; WARPALIGN_STATS=1 $C/$t $W/g27.fa $W/sjm.fa 2>&1 >/dev/null | grep warpalign
done > $O/stats.txt 2>&1
for t in oldtools/lastz-b3c8abb tools/lastz; do
  s=$(date +%s.%N)
  for j in $(seq 16); do $C/$t $W/g27.fa $W/sjm.fa > $W/out16.$j 2>/dev/null & done; wait
  e=$(date +%s.%N)
  echo "$t 16 at once: $(echo "$e - $s" | bc) s, outputs $(cat $W/out16.* | md5sum | cut -c1-12)"
done | tee $O/lastz-16.txt
OUT=$O/bench bench/lastz $C > /dev/null 2>&1; cat $O/bench/results.md
