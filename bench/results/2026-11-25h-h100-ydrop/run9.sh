#!/usr/bin/env bash
# device call: where LASTZ's anchor loop waits (by how a job was queued), with and without deferral
set -u
C=$(dirname "$(realpath "$0")"); O=${OUT:-/tmp/o}; mkdir -p $O; W=/tmp/w; mkdir -p $W
for f in hpylori_G27 hpylori_SJM180; do zcat $C/data/$f.fasta.gz > $W/$f.fa; done
hp="$W/hpylori_G27.fa $W/hpylori_SJM180.fa"
t() { local name=$1; shift; local s=$(date +%s.%N); "$@" > $W/$name.out 2> $W/$name.err; local rc=$?; local e=$(date +%s.%N); printf '%-34s rc %d %7.2f s  ' $name $rc $(awk -v a=$s -v b=$e "BEGIN{print b-a}"); }
cmpto() { cmp -s $W/$1.out $W/$2.out && echo identical || echo DIFFERS; }
{ t ref timeout 120 $C/tools/lastz-ref $hp; echo
for v in "lastz cpu 255 -" "lastz-x cpu 255 -" "lastz-x cpu 255 1" "lastz-x gpu 255 -" "lastz-x gpu 255 1" "lastz-x cpu 128 1" "lastz cpu 255 -"; do
  set -- $v; n=$1-$2-$3-$4
  if [ $4 = 1 ]; then x="X_NODEFER=1"; else x="X_UNUSED=1"; fi
  t $n timeout 120 env $x WARPALIGN_STATS=1 WARPALIGN_BACKEND=$2 WARPALIGN_YDROP_AHEAD=$3 $C/tools/$1 $hp; cmpto $n ref
  grep -h 'warpalign\|^X' $W/$n.err | sed 's/^/    /'
done; } 2>&1 | tee $O/hp.txt
