#!/usr/bin/env bash
# device call: branches ydrop-gpu-unconstrained + ydrop-one-pass: exactness, kernel time vs main, LASTZ H. pylori
set -u
C=$(dirname "$(realpath "$0")"); O=${OUT:-/tmp/o}; mkdir -p $O; W=/tmp/w; mkdir -p $W
cs=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1)
nvidia-smi --query-gpu=name --format=csv,noheader; nproc
echo "== smoke"; timeout 60 $C/bin/ydrop_fuzz 3000 1 gpu 2>&1 | tail -2 | tee $O/smoke.txt
grep -q 'mismatches 0' $O/smoke.txt || exit 1
echo "== ydrop_gpu"; timeout 150 $C/tests/ydrop_gpu 2>&1 | grep -E 'test |result|MISMATCH|panick' | head -30 | tee $O/ydrop_gpu.txt
echo "== ydrop_shadow"; timeout 120 $C/tests/ydrop_shadow --nocapture 2>&1 | grep -E 'taken|test |result|panick' | tee $O/ydrop_shadow.txt
for k in main one-pass; do
  b=$C/bin/ydrop; [ $k = main ] && b=$C/bin/ydrop-main
  echo "== ydrop bench, kernel of $k"
  WARPALIGN_YDROP_GPU_PROFILE=1 timeout 100 $b --dump $C/data/hp-free.dump.gz --reps 3 --wave 64 > $O/ydrop-$k.txt 2>&1; grep -v '^warpalign' $O/ydrop-$k.txt
done
echo "== fuzz 1M"; timeout 100 $C/bin/ydrop_fuzz 1000000 2033 gpu 2>&1 | tail -3 | tee $O/fuzz.txt
echo "== sanitizers"; for t in memcheck racecheck synccheck; do echo "-- $t"; timeout 80 $cs --tool $t $C/bin/ydrop_fuzz 300 5 gpu 2>&1 | tail -2; done | tee $O/san.txt
for f in hpylori_G27 hpylori_SJM180 B_anthracis_Mslice B_anthracis_contigs dwv_NC_004830 vdv1_NC_006494; do zcat $C/data/$f.fasta.gz > $W/$f.fa; done
t() { local name=$1; shift; local s=$(date +%s.%N); "$@" > $W/$name.out 2> $W/$name.err; local rc=$?; local e=$(date +%s.%N); printf '%-34s rc %d %7.2f s  ' $name $rc $(awk -v a=$s -v b=$e "BEGIN{print b-a}"); }
cmpto() { cmp -s $W/$1.out $W/$2.out && echo identical || echo DIFFERS; }
echo "== small pairs, GPU pool vs reference"
i=0
for args in "" "--format=maf" "--ydrop=500 --gappedthresh=2000 --noytrim" "--allocate:traceback=200K" "--strand=both --masking=3 --format=general" "--chain --format=axt"; do
  for p in "B_anthracis_Mslice B_anthracis_contigs" "dwv_NC_004830 vdv1_NC_006494"; do
    set -- $p; i=$((i+1))
    t r$i timeout 60 $C/tools/lastz-ref $W/$1.fa $W/$2.fa $args; echo
    t g$i timeout 60 env WARPALIGN_BACKEND=gpu WARPALIGN_YDROP_AHEAD=255 $C/tools/lastz $W/$1.fa $W/$2.fa $args; cmpto g$i r$i
  done
done 2>&1 | tee $O/small.txt
hp="$W/hpylori_G27.fa $W/hpylori_SJM180.fa"
echo "== H. pylori"
{ t ref timeout 120 $C/tools/lastz-ref $hp; echo
for v in "cpu 255" "gpu 255" "gpu 64" "cpu 255" "gpu 255"; do
  set -- $v
  t $1-$2 timeout 120 env WARPALIGN_STATS=1 WARPALIGN_BACKEND=$1 WARPALIGN_YDROP_AHEAD=$2 $C/tools/lastz $hp; cmpto $1-$2 ref
  grep -h 'warpalign' $W/$1-$2.err | sed 's/^/    /'
done; } 2>&1 | tee $O/hp.txt
