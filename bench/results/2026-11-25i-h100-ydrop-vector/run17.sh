#!/usr/bin/env bash
# device call: the vector sweep on the device's CPU (dumped H. pylori calls), then LASTZ reference vs rebuilt
# (vector sweep, and WARPALIGN_YDROP_SWEEP=spec) on H. pylori and the larger pair, with the loop split
set -u
C=$(dirname "$(realpath "$0")"); O=${OUT:-/tmp/o}; mkdir -p $O; W=/tmp/w6; mkdir -p $W; d=$C/data
{ lscpu | grep -E "Model name|^CPU\(s\)|Thread|Flags" | sed 's/Flags:.*\(avx512f\).*/Flags: ... avx512f .../'; nvidia-smi --query-gpu=name --format=csv,noheader; } 2>&1 | tee $O/cpu.txt
$C/bin/ydrop --dump $d/hp-free.dump.gz --one-thread --reps 2 2>&1 | tee $O/ydrop-sweeps.txt
$C/bin/gen genome --seed 7 --size 10500000 -o $W/genome.fa $d/ecoli_K12_MG1655.fasta.gz $d/hpylori_G27.fasta.gz $d/hpylori_SJM180.fasta.gz $d/B_anthracis_Mslice.fasta.gz $d/D_melanogaster_2Rslice.fasta.gz > /dev/null 2>&1
$C/bin/gen pair --seed 7 --divergence 0.10 -o $W/genome_div.fa $W/genome.fa > /dev/null 2>&1
$C/bin/gen split --pieces 8 -o $W/genome $W/genome.fa > /dev/null 2>&1
zcat $d/hpylori_G27.fasta.gz > $W/g27.fa; zcat $d/hpylori_SJM180.fasta.gz > $W/sjm.fa
for run in "hp $W/g27.fa $W/sjm.fa" "large $W/genome.1.fa[multiple] $W/genome_div.fa --format=maf"; do
  set -- $run; n=$1; shift
  for t in lastz-ref lastz lastz:spec; do
    sw=vector; [ $t = lastz:spec ] && sw=spec
    s=$(date +%s.%N); WARPALIGN_YDROP_SWEEP=$sw WARPALIGN_STATS=1 timeout 100 $C/tools/${t%:spec} "$@" > $W/$n-$t.out 2> $W/$n-$t.err
    echo "$n $t: rc $? $(awk -v a=$s -v b=$(date +%s.%N) 'BEGIN{print b-a}') s"; grep warpalign $W/$n-$t.err | sed 's/^/    /'
    [ $t = lastz-ref ] || { cmp $W/$n-lastz-ref.out $W/$n-$t.out && echo "$n $t: identical"; }
  done
done 2>&1 | tee $O/lastz.txt
