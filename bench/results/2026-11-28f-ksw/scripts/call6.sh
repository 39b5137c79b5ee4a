#!/usr/bin/env bash
# call 6 (tests/device part 2 carried, at the commit that widens the rebuilt LASTZ's search to --exact,
# --mismatch and --nogfextend): the part's tests and the lastz e2e group on the GPU backend, then H. pylori
# G27 vs SJM180 with the other gap-free extensions, reference then rebuilt (backend auto), outputs compared
exec > >(tee "$OUT/log.txt") 2>&1
tests/device run lastz 2>&1 | grep -E "test result|FAILED|DIFFERENT|panicked|e2e:|device \(" | tail -20
T=$PWD/target/device/tools w=/tmp/hp
mkdir -p $w
for f in hpylori_G27 hpylori_SJM180; do gunzip -c target/device/data/wga/$f.fasta.gz > $w/$f.fa; done
for opt in "--exact=20 --nogapped" "--mismatch=2,40 --nogapped" "--mismatch=2,40 --format=maf"; do
  s=$(date +%s.%N); $T/lastz-ref $w/hpylori_G27.fa $w/hpylori_SJM180.fa $opt > $w/ref.out 2> $w/ref.err; r=$(awk -v a=$s -v b=$(date +%s.%N) 'BEGIN { printf "%.2f", b - a }')
  s=$(date +%s.%N); WARPALIGN_STATS=1 $T/lastz $w/hpylori_G27.fa $w/hpylori_SJM180.fa $opt > $w/new.out 2> $w/new.err; n=$(awk -v a=$s -v b=$(date +%s.%N) 'BEGIN { printf "%.2f", b - a }')
  cmp -s $w/ref.out $w/new.out && c=identical || c=DIFFERENT
  echo "hpylori $opt: reference $r s, rebuilt $n s, $c ($(wc -l < $w/ref.out) lines); $(grep -o '[0-9]* query strands searched by warpalign ([0-9]* HSPs, [0-9.]* s' $w/new.err)"
done
