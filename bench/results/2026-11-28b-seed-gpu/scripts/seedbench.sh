#!/usr/bin/env bash
# the seed engine's GPU tests, the e2e minimap2 group on the GPU, then the 333 Mb genome with 200 Mb of
# UL-profile reads: reference -t16, rebuilt with seeding on the CPU (WARPALIGN_SEED_GPU=0) and on the GPU
# (default), without and with -c; then one profiled run
exec > >(tee "$OUT/log.txt") 2>&1
B=$PWD/target/benchcarry D=$B/data w=/tmp/w
mkdir -p $w
nvidia-smi --query-gpu=name --format=csv,noheader
if [ "${SKIP_TESTS:-0}" = 0 ]; then
  (cd target/seedprof && WARPALIGN_DATA=$PWD/data ./seed gpu:: 2>&1 | grep -E "^test |result|panicked" > $OUT/seedtests.txt; tail -1 $OUT/seedtests.txt)
  t0=$SECONDS
  TOOLS=$B/tools WARPALIGN_DATA=$PWD/target/seedprof/data E2E_THREADS=16 WARPALIGN_BACKEND=gpu tests/e2e/run minimap2 > $OUT/e2e.txt 2>&1
  tail -1 $OUT/e2e.txt; grep -v '^identical' $OUT/e2e.txt | head; echo "e2e $((SECONDS - t0)) s"
  grep -h 'seeded in one batch' target/e2e/out/minimap2.seed_gpu.*/new.err | head -3
fi
t0=$SECONDS
$B/bin/gen genome --seed 7 --repeat-frac 39 --copy-div 0-0.3 -o $w/g.fa $D/ecoli_K12_MG1655.fasta.gz $D/hpylori_G27.fasta.gz \
  $D/hpylori_SJM180.fasta.gz $D/B_anthracis_Mslice.fasta.gz $D/D_melanogaster_2Rslice.fasta.gz
$B/tools/minimap2-ref -t16 -x map-ont -d $w/g.mmi $w/g.fa 2> $w/idx.err; tail -1 $w/idx.err
$B/bin/gen reads --ref $w/g.fa --seed 7 --profile $D/ecoli_ultralong_R9_nanotest.fastq.gz --bases ${BASES:-200000000} -o $w/r.fq --stats $w/r.stats
echo "inputs $((SECONDS - t0)) s"
head -c 200000 $w/g.fa > $w/warm.fa
WARPALIGN_BACKEND=gpu $B/tools/minimap2 -t16 -x map-ont -c $w/warm.fa $w/warm.fa > /dev/null 2>&1
rt() { sed -n 's/.*Real time: \([0-9.]*\) sec; CPU: \([0-9.]*\) sec; Peak RSS: \([0-9.]*\) GB.*/\1 s, CPU \2 s, RSS \3 GB/p' "$1"; }
for opts in "" "-c"; do
  n=${opts:-noc}
  $B/tools/minimap2-ref -t16 -x map-ont $opts $w/g.mmi $w/r.fq > $w/ref.$n 2> $w/ref.$n.err
  WARPALIGN_SEED_GPU=0 $B/tools/minimap2 -t16 -x map-ont $opts $w/g.mmi $w/r.fq > $w/off.$n 2> $w/off.$n.err
  $B/tools/minimap2 -t16 -x map-ont $opts $w/g.mmi $w/r.fq > $w/on.$n 2> $w/on.$n.err
  for v in off on; do cmp -s $w/ref.$n $w/$v.$n && s=identical || s=DIFFERENT; echo "$n $v: $s"; done
  echo "$n ref: $(rt $w/ref.$n.err)"; echo "$n seed-cpu: $(rt $w/off.$n.err)"; echo "$n seed-gpu: $(rt $w/on.$n.err)"
  grep -h 'seeded in one batch' $w/on.$n.err | awk '{ n += $2; s += $(NF-1) } END { print "seed batches:", NR, "reads", n, "sec", s }'
  head -6 $w/on.$n.err | grep -v Version
  cp $w/on.$n.err $OUT/on.$n.err
done
