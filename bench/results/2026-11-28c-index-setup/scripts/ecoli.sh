#!/usr/bin/env bash
# E. coli with 200 Mb of UL-profile reads: reference -t16, rebuilt by default, without and with -c
B=$PWD/target/benchcarry D=$B/data w=/tmp/w
mkdir -p $w
[ -e $w/r200.fq ] || $B/bin/gen reads --ref $D/ecoli_K12_MG1655.fasta.gz --seed 7 --profile $D/ecoli_ultralong_R9_nanotest.fastq.gz --bases 200000000 -o $w/r200.fq --stats $w/r200.stats
gunzip -c $D/ecoli_K12_MG1655.fasta.gz > $w/ec.fa
rt() { sed -n 's/.*Real time: \([0-9.]*\) sec; CPU: \([0-9.]*\) sec; Peak RSS: \([0-9.]*\) GB.*/\1 s, CPU \2 s, RSS \3 GB/p' "$1"; }
for opts in "" "-c"; do
  n=${opts:-noc}
  $B/tools/minimap2-ref -t16 -x map-ont $opts $w/ec.fa $w/r200.fq > $w/eref.$n 2> $w/eref.$n.err
  $B/tools/minimap2 -t16 -x map-ont $opts $w/ec.fa $w/r200.fq > $w/eon.$n 2> $w/eon.$n.err
  cmp -s $w/eref.$n $w/eon.$n && s=identical || s=DIFFERENT; echo "ecoli $n: $s"
  echo "ecoli $n ref: $(rt $w/eref.$n.err)"; echo "ecoli $n rebuilt: $(rt $w/eon.$n.err)"
done
