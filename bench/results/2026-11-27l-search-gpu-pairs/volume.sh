# GPU vs twin random search pairs for issue 23's count: P processes at once, RAYON threads each, chunks of
# N pairs under LASTZ's default configuration, seed BASE + 100*slot + chunk; no chunk starts past END seconds or after CHUNKS chunks.
set -u; D=target/dev2; P=${P:-4}; TH=${TH:-4}; END=${END:-470}; N=${N:-1000}; BASE=${BASE:-8000}; CHUNKS=${CHUNKS:-1000}
exec > >(tee "$OUT/log.txt") 2>&1
export WARPALIGN_BACKEND=gpu
start=$(date +%s)
slot() {
  local s=$1 k=0 t0 seed
  while (( $(date +%s) - start < END && k < CHUNKS )); do
    seed=$((BASE + 100 * s + k)); t0=$(date +%s%N)
    RAYON_NUM_THREADS=$TH WARPALIGN_SEARCH_GPU_DEFAULT_ONLY=1 WARPALIGN_SEARCH_CASES=$((4 * N)) WARPALIGN_SEARCH_SEED=$seed TOOLS=$PWD/$D/tools WARPALIGN_DATA=$PWD/$D/data timeout $((590 - ($(date +%s) - start))) $D/bin/search --exact gpu::gpu_random_pairs_vs_twin --nocapture > $D/out.$s.$k 2>&1
    echo "slot $s seed $seed rc $? $(( ($(date +%s%N) - t0) / 1000000 )) ms: $(grep -E 'test result|pairs \(|panicked|case' $D/out.$s.$k | tr '\n' ' ')"
    k=$((k + 1))
  done
}
pids=()
for ((s = 0; s < P; s++)); do slot $s & pids+=($!); done
wait "${pids[@]}"
echo "all slots done after $(( $(date +%s) - start )) s; passed chunks: $(grep -l 'test result: ok. 1 passed' $D/out.* | wc -l) of $(ls $D/out.* | wc -l)"
