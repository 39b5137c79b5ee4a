#!/usr/bin/env bash
# device call: early jobs for deferred anchors (WARPALIGN_YDROP_EARLY), exactness and H. pylori loop time
set -u
C=$(dirname "$(realpath "$0")"); O=${OUT:-/tmp/o}; mkdir -p $O; W=/tmp/w; mkdir -p $W
echo "== pool test"; timeout 60 $C/tests/ydrop_shadow ahead_pool --nocapture 2>&1 | grep -E 'taken|test |result|panic' | tee $O/pool.txt
for f in hpylori_G27 hpylori_SJM180 B_anthracis_Mslice B_anthracis_contigs dwv_NC_004830 vdv1_NC_006494; do zcat $C/data/$f.fasta.gz > $W/$f.fa; done
t() { local name=$1; shift; local s=$(date +%s.%N); "$@" > $W/$name.out 2> $W/$name.err; local rc=$?; local e=$(date +%s.%N); printf '%-34s rc %d %7.2f s  ' $name $rc $(awk -v a=$s -v b=$e "BEGIN{print b-a}"); }
cmpto() { cmp -s $W/$1.out $W/$2.out && echo identical || echo DIFFERS; }
hp="$W/hpylori_G27.fa $W/hpylori_SJM180.fa"
echo "== H. pylori"
{ t ref timeout 120 $C/tools/lastz-ref $hp; echo
for v in "cpu 255 0" "cpu 255 1" "gpu 255 1" "cpu 128 1" "gpu 128 1" "cpu 255 0" "cpu 255 1" "gpu 255 1"; do
  set -- $v; n=$1-$2-$3
  t $n timeout 120 env WARPALIGN_STATS=1 WARPALIGN_BACKEND=$1 WARPALIGN_YDROP_AHEAD=$2 WARPALIGN_YDROP_EARLY=$3 $C/tools/lastz $hp; cmpto $n ref
  grep -h 'warpalign' $W/$n.err | grep -v routed | sed 's/^/    /'
done; } 2>&1 | tee $O/hp.txt
echo "== small pairs, early jobs, CPU and GPU pools vs reference"
i=0
for args in "" "--format=maf" "--ydrop=500 --gappedthresh=2000 --noytrim" "--allocate:traceback=200K" "--strand=both --masking=3 --format=general" "--chain --format=axt"; do
  for p in "B_anthracis_Mslice B_anthracis_contigs" "dwv_NC_004830 vdv1_NC_006494"; do
    set -- $p; i=$((i+1))
    t r$i timeout 60 $C/tools/lastz-ref $W/$1.fa $W/$2.fa $args; echo
    for b in cpu gpu; do t $b$i timeout 60 env WARPALIGN_BACKEND=$b WARPALIGN_YDROP_AHEAD=255 $C/tools/lastz $W/$1.fa $W/$2.fa $args; cmpto $b$i r$i; done
  done
done 2>&1 | tee $O/small.txt
