#!/usr/bin/env bash
# Session 21's checks after the structure changes: this tree's tools against the builds of b3c8abb (the
# session's start), interleaved; 16 LASTZ processes at once; WARPALIGN_STATS; compute-sanitizer memcheck of
# the engines' GPU tests (the streams now leased from one pool).
set -u
C=$(dirname "$(realpath "$0")"); O=${OUT:-/tmp/o}; mkdir -p $O; W=/tmp/wp; mkdir -p $W; d=$C/data
now() { date +%s.%N; }
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
  s=$(now)
  for j in $(seq 16); do $C/$t $W/g27.fa $W/sjm.fa > $W/out16.$j 2>/dev/null & done; wait
  echo "$t 16 at once: $(awk -v a=$s -v b=$(now) 'BEGIN {printf "%.2f", b - a}') s, outputs $(cat $W/out16.* | md5sum | cut -c1-12)"
done | tee $O/lastz-16.txt
ref=$d/ecoli_K12_MG1655.fasta.gz ul=$d/ecoli_ultralong_R9_nanotest.fastq.gz
for k in 1 2 3; do
  for t in tools/minimap2-ref oldtools/minimap2-b3c8abb tools/minimap2; do
    /usr/bin/time -f "%e" -o $W/t $C/$t -t16 -cx map-ont $ref $ul > $W/out 2>/dev/null
    echo "$t run $k: $(cat $W/t) s, output $(md5sum < $W/out | cut -c1-12)"
  done
done | tee $O/minimap2-old-new.txt
export WARPALIGN_BACKEND=gpu
(KSW_GPU_CASES=2000 KSW_GPU_TRAP_CASES=100 KSW_GPU_EXTS2_CASES=1000 KSW_GPU_EXTS2_CALL_CASES=200 timeout 200 compute-sanitizer --tool memcheck $C/testbin/ksw gpu:: --test-threads=1 2>&1 | tail -5) > $O/memcheck-ksw.txt
(CHAIN_GPU_CASES=2000 CHAIN_GPU_LONG=20 timeout 150 compute-sanitizer --tool memcheck $C/testbin/chain gpu:: --test-threads=1 2>&1 | tail -5) > $O/memcheck-chain.txt
(YDROP_GPU_CASES=2000 YDROP_GPU_MODEL_CASES=200 timeout 150 compute-sanitizer --tool memcheck $C/testbin/ydrop gpu::gpu_equals_twin_random gpu::engine_batch_equals_twin --test-threads=1 2>&1 | tail -5) > $O/memcheck-ydrop.txt
tail -n 3 $O/memcheck-*.txt
