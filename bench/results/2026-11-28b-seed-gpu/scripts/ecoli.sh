#!/usr/bin/env bash
# E. coli with 200 Mb and 64 Mb of UL-profile reads: reference -t16, rebuilt with seeding on the CPU
# (WARPALIGN_SEED_GPU=0) and by default, without and with -c (auto backend, as users run)
exec > >(tee "$OUT/log.txt") 2>&1
B=$PWD/target/benchcarry D=$B/data w=/tmp/w
mkdir -p $w
nvidia-smi --query-gpu=name --format=csv,noheader
for b in 200000000 64000000; do
  $B/bin/gen reads --ref $D/ecoli_K12_MG1655.fasta.gz --seed 7 --profile $D/ecoli_ultralong_R9_nanotest.fastq.gz --bases $b -o $w/r$b.fq --stats $w/r$b.stats
done
gunzip -c $D/ecoli_K12_MG1655.fasta.gz > $w/ec.fa
WARPALIGN_BACKEND=gpu $B/tools/minimap2 -t16 -x map-ont -c $w/ec.fa $w/r64000000.fq > /dev/null 2>&1
rt() { sed -n 's/.*Real time: \([0-9.]*\) sec; CPU: \([0-9.]*\) sec; Peak RSS: \([0-9.]*\) GB.*/\1 s, CPU \2 s, RSS \3 GB/p' "$1"; }
for b in 200000000 64000000; do
for opts in "" "-c"; do
  [ $b = 64000000 ] && [ "$opts" = "-c" ] && continue
  n=$b.${opts:-noc}
  for rep in 1; do
    $B/tools/minimap2-ref -t16 -x map-ont $opts $w/ec.fa $w/r$b.fq > $w/ref.$n 2> $w/ref.$n.err
    WARPALIGN_SEED_GPU=0 $B/tools/minimap2 -t16 -x map-ont $opts $w/ec.fa $w/r$b.fq > $w/off.$n 2> $w/off.$n.err
    $B/tools/minimap2 -t16 -x map-ont $opts $w/ec.fa $w/r$b.fq > $w/on.$n 2> $w/on.$n.err
    for v in off on; do cmp -s $w/ref.$n $w/$v.$n && s=identical || s=DIFFERENT; echo "$n $v: $s"; done
    echo "$n ref: $(rt $w/ref.$n.err)"; echo "$n seed-cpu: $(rt $w/off.$n.err)"; echo "$n seed-gpu: $(rt $w/on.$n.err)"
    grep -h 'seeded in one batch' $w/on.$n.err | awk '{ n += $2; s += $(NF-1) } END { print "seed batches:", NR, "reads", n, "sec", s }'
  done
done
done
