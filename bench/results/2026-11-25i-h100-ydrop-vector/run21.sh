#!/usr/bin/env bash
# device call: the GPU paths with this session's CPU changes: ydrop_gpu and ydrop_shadow tests on the GPU,
# and LASTZ with WARPALIGN_BACKEND=gpu (the pool's GPU thread) vs the reference
set -u
C=$(dirname "$(realpath "$0")"); O=${OUT:-/tmp/o}; mkdir -p $O; W=/tmp/w10; mkdir -p $W; d=$C/data
for t in ydrop_gpu ydrop_shadow; do
  WARPALIGN_BACKEND=gpu TOOLS=$C/tools WARPALIGN_DATA=$d $C/bin/$t --test-threads=4 2>&1 | grep -E "^test |test result|skipped|panicked|accepted|taken"
done 2>&1 | tee $O/gpu-tests.txt
zcat $d/hpylori_G27.fasta.gz > $W/g27.fa; zcat $d/hpylori_SJM180.fasta.gz > $W/sjm.fa
zcat $d/B_anthracis_Mslice.fasta.gz > $W/ba.fa; zcat $d/B_anthracis_contigs.fasta.gz > $W/bac.fa
zcat $d/dwv_NC_004830.fasta.gz > $W/dwv.fa; zcat $d/vdv1_NC_006494.fasta.gz > $W/vdv.fa
k=0
for run in "$W/g27.fa $W/sjm.fa" "$W/ba.fa $W/bac.fa" "$W/ba.fa $W/bac.fa --strand=both --format=maf" \
           "$W/ba.fa $W/bac.fa --ydrop=3000 --gappedthresh=2000 --noytrim --format=general" \
           "$W/dwv.fa $W/vdv.fa --allocate:traceback=200K --format=axt --chain" "$W/dwv.fa $W/vdv.fa --masking=3 --format=sam"; do
  k=$((k+1))
  $C/tools/lastz-ref $run > $W/r$k.out 2> $W/r$k.err
  s=$(date +%s.%N); WARPALIGN_BACKEND=gpu WARPALIGN_STATS=1 $C/tools/lastz $run > $W/g$k.out 2> $W/g$k.err
  echo "run $k ($run): gpu backend $(awk -v a=$s -v b=$(date +%s.%N) 'BEGIN{printf "%.2f", b-a}') s, $(cmp -s $W/r$k.out $W/g$k.out && echo identical || echo DIFFERENT)"
  grep -E "answered|loops" $W/g$k.err | sed 's/^/    /'
done 2>&1 | tee $O/lastz-gpu.txt
