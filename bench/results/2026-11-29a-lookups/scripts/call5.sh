#!/usr/bin/env bash
# call 5: what the machine's 16 CPUs are (spin: eight independent multiply chains a thread, by thread count:
# hyperthreads of one core share its multipliers), and how busy the GPU is while minimap2 maps 800 Mb of UL
# reads (-c, the 200 Mb set four times) with nvidia-smi dmon's SM and memory use each second.
exec > >(tee "$OUT/log.txt") 2>&1
B=$PWD/target/benchcarry D=$B/data w=/tmp/w ec=$B/data/ecoli_K12_MG1655.fasta.gz
mkdir -p $w
lscpu 2>/dev/null | grep -iE "^(CPU\(s\)|Thread|Core|Socket|Model name|NUMA node)" || true
grep -m1 flags /proc/cpuinfo | grep -o " ht " || echo "no ht flag"
for t in 1 2 4 8 12 16; do $B/bin/spin $t; done
[ -s $w/r200.fq ] || $B/bin/gen reads --ref $ec --seed 7 --profile $D/ecoli_ultralong_R9_nanotest.fastq.gz --bases 200000000 -o $w/r200.fq > /dev/null 2>&1
cat $w/r200.fq $w/r200.fq $w/r200.fq $w/r200.fq > $w/r800.fq
gunzip -c $ec | head -c 100000 > $w/warm.fa
WARPALIGN_BACKEND=gpu $B/tools/minimap2 -t16 -x map-ont -c $w/warm.fa $w/warm.fa > /dev/null 2>&1
for v in minimap2 minimap2-big; do
  nvidia-smi dmon -s u -d 1 > $OUT/dmon-$v.txt 2>&1 &
  dm=$!
  sleep 1
  $B/tools/$v -t16 -x map-ont -c $ec $w/r800.fq > /dev/null 2> $w/$v.err
  sleep 1
  kill $dm; wait $dm 2>/dev/null
  echo "$v 800 Mb -c: $(grep -o 'Real time.*' $w/$v.err)"
  cat $OUT/dmon-$v.txt
done
$B/tools/minimap2-ref -t16 -x map-ont -c $ec $w/r800.fq > /dev/null 2> $w/ref.err
echo "ref 800 Mb -c: $(grep -o 'Real time.*' $w/ref.err)"
