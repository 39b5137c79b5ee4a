#!/usr/bin/env bash
# Session 20's speed check: the rebuilt tools of this tree against the builds of the session's start
# (oldtools/: minimap2 of a340a63; lastz with the glue still inside its patches), interleaved, then bench/lastz.
set -u
C=$(dirname "$(realpath "$0")"); O=${OUT:-/tmp/o}; mkdir -p $O; W=/tmp/wp; mkdir -p $W; d=$C/data
zcat $d/hpylori_G27.fasta.gz > $W/g27.fa; zcat $d/hpylori_SJM180.fasta.gz > $W/sjm.fa
for k in 1 2 3; do
  for t in oldtools/lastz tools/lastz; do
    /usr/bin/time -f "%e" -o $W/t $C/$t $W/g27.fa $W/sjm.fa > $W/out 2>/dev/null
    echo "$t run $k: $(cat $W/t) s, output $(md5sum < $W/out | cut -c1-12)"
  done
done | tee $O/lastz-old-new.txt
ref=$d/ecoli_K12_MG1655.fasta.gz ul=$d/ecoli_ultralong_R9_nanotest.fastq.gz
for k in 1 2 3; do
  for t in tools/minimap2-ref oldtools/minimap2 tools/minimap2; do
    /usr/bin/time -f "%e" -o $W/t $C/$t -t16 -cx map-ont $ref $ul > $W/out 2>/dev/null
    echo "$t run $k: $(cat $W/t) s, output $(md5sum < $W/out | cut -c1-12)"
  done
done | tee $O/minimap2-old-new.txt
OUT=$O/bench bench/lastz $C > /dev/null 2>&1; cat $O/bench/results.md
