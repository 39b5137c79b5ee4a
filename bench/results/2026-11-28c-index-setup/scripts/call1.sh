#!/usr/bin/env bash
# call 1: the seed engine's GPU tests (index tables probed as kh_get), memcheck on a few random cases, the e2e
# minimap2 group on the GPU, then the 333 Mb genome (prebuilt index) and E. coli with 200 Mb of UL-profile reads:
# reference -t16, rebuilt with upstream's index load (WARPALIGN_INDEX_LOAD=upstream), rebuilt by default
exec > >(tee "$OUT/log.txt") 2>&1
B=$PWD/target/benchcarry D=$B/data w=/tmp/w S=$PWD/target/seedprof/scripts
mkdir -p $w
nvidia-smi --query-gpu=name --format=csv,noheader
if [ "${SKIP_TESTS:-0}" = 0 ]; then
  (cd target/seedprof && WARPALIGN_DATA=$PWD/data ./seed gpu:: 2>&1 | grep -E "^test |result|panicked" > $OUT/seedtests.txt; tail -1 $OUT/seedtests.txt)
  (cd target/seedprof && WARPALIGN_DATA=$PWD/data SEED_HITS_CASES=20 timeout 300 compute-sanitizer --tool memcheck ./seed gpu::gpu_random_queries 2>&1 | tail -4 > $OUT/memcheck.txt; cat $OUT/memcheck.txt)
  t0=$SECONDS
  TOOLS=$B/tools WARPALIGN_DATA=$PWD/target/seedprof/data E2E_THREADS=16 WARPALIGN_BACKEND=gpu tests/e2e/run minimap2 > $OUT/e2e.txt 2>&1
  tail -1 $OUT/e2e.txt; grep -v '^identical' $OUT/e2e.txt | head; echo "e2e $((SECONDS - t0)) s"
fi
$S/genome.sh
$S/ecoli.sh
