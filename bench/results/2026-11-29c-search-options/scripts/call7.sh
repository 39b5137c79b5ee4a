#!/usr/bin/env bash
# H. pylori G27 vs SJM180 under the option sets this session routed through warpalign's search: the reference
# (single-threaded, as LASTZ runs) and the rebuilt LASTZ (backend auto), one after the other; outputs compared.
set -u
R=$PWD; T=$R/target/device/tools; D=$R/target/device/data/wga
mkdir -p /tmp/w && cd /tmp/w
zcat $D/hpylori_G27.fasta.gz > g27.fa; zcat $D/hpylori_SJM180.fasta.gz > sjm.fa
TIMEFORMAT=%R
echo "options | reference s | rebuilt s | ratio | identical | rebuilt's search"
for opts in "" "--word=20" "--seed=half24" "--seed=1T1T0111T011T0T11" "--hspthresh=top5%" "--seed=match14 --word=24 --transition=2"; do
  r=$( { time $T/lastz-ref g27.fa sjm.fa $opts > ref.out 2>ref.err; } 2>&1 )
  n=$( { time WARPALIGN_STATS=1 $T/lastz g27.fa sjm.fa $opts > new.out 2>new.err; } 2>&1 )
  same=$(cmp -s ref.out new.out && echo yes || echo NO)
  route=$(grep -o '[0-9]* query strands searched by warpalign[^,]*' new.err | head -1)
  echo "${opts:-default} | $r | $n | $(awk -v r="$r" -v n="$n" 'BEGIN { printf "%.2f", r / n }') | $same | $route"
  cp new.err "$OUT/new.$(echo "${opts:-default}" | tr -c 'a-z0-9' _).err"
done
