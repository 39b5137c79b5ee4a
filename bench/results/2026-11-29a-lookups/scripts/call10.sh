#!/usr/bin/env bash
# call 10: where the rebuilt minimap2's resident memory goes (issue 25): the GPU's start alone (bench gpustart:
# resident memory by step and by mapping), minimap2 on 100 kb with the GPU and without, and HiFi 100 Mb -c, UL
# 200 Mb -c and splice 40 Mb -c with the default backend and with WARPALIGN_BACKEND=cpu (peak RSS of each).
exec > >(tee "$OUT/log.txt") 2>&1
B=$PWD/target/benchcarry D=$B/data w=/tmp/w ec=$B/data/ecoli_K12_MG1655.fasta.gz
mkdir -p $w
[ -s $w/r200.fq ] || $B/bin/gen reads --ref $ec --seed 7 --profile $D/ecoli_ultralong_R9_nanotest.fastq.gz --bases 200000000 -o $w/r200.fq > /dev/null 2>&1 &
p2=$!
[ -s $w/hifi.fq ] || $B/bin/gen reads --ref $ec --seed 7 --mode hifi --profile $D/ecoli_sequel_clr_subreads.fastq.gz --len 15000 --bases 100000000 -o $w/hifi.fq > /dev/null 2>&1 &
p3=$!
[ -s $w/splice.fq ] || $B/bin/gen reads --ref $ec --seed 7 --spliced --genes 2000 --profile $D/ecoli_R9_medaka_test_reads.fasta.gz --bases 40000000 -o $w/splice.fq > /dev/null 2>&1 &
p4=$!
wait $p2 $p3 $p4
cp $B/bin/gpustart $B/tools/ && $B/tools/gpustart 8
gunzip -c $ec | head -c 100000 > $w/warm.fa
rss() { sed -n 's/.*Real time: \([0-9.]*\) sec; CPU: \([0-9.]*\) sec; Peak RSS: \([0-9.]*\) GB.*/\1 s, RSS \3 GB/p' "$1"; }
for be in gpu cpu; do
  WARPALIGN_BACKEND=$be $B/tools/minimap2 -t16 -x map-hifi -c $w/warm.fa $w/warm.fa > /dev/null 2> $w/x.err; echo "100 kb map-hifi -c, backend $be: $(rss $w/x.err)"
done
for set in "map-hifi hifi" "map-ont r200" "splice splice"; do
  set -- $set
  $B/tools/minimap2-ref -t16 -x $1 -c $ec $w/$2.fq > /dev/null 2> $w/x.err; echo "$2 -x $1 -c ref: $(rss $w/x.err)"
  for be in auto cpu; do
    WARPALIGN_BACKEND=$be $B/tools/minimap2 -t16 -x $1 -c $ec $w/$2.fq > /dev/null 2> $w/x.err; echo "$2 -x $1 -c backend $be: $(rss $w/x.err)"
  done
done
