#!/usr/bin/env bash
# call 11: the 333 Mb genome runs (reference, rebuilt by default), one each
exec > >(tee "$OUT/log.txt") 2>&1
B=$PWD/target/benchcarry D=$B/data w=/tmp/w
mkdir -p $w
nvidia-smi --query-gpu=name --format=csv,noheader
$B/bin/gen genome --seed 7 --repeat-frac 39 --copy-div 0-0.3 -o $w/g.fa $D/ecoli_K12_MG1655.fasta.gz $D/hpylori_G27.fasta.gz \
  $D/hpylori_SJM180.fasta.gz $D/B_anthracis_Mslice.fasta.gz $D/D_melanogaster_2Rslice.fasta.gz
$B/tools/minimap2-ref -t16 -x map-ont -d $w/g.mmi $w/g.fa 2> $w/idx.err
$B/bin/gen reads --ref $w/g.fa --seed 7 --profile $D/ecoli_ultralong_R9_nanotest.fastq.gz --bases 200000000 -o $w/r.fq --stats $w/r.stats
rt() { sed -n 's/.*Real time: \([0-9.]*\) sec; CPU: \([0-9.]*\) sec; Peak RSS: \([0-9.]*\) GB.*/\1 s, CPU \2 s, RSS \3 GB/p' "$1"; }
filt() { sed -e '/^\[M::main\] \(Real time\|CMD\):/d' -e '/^\[M::warpalign[]:]/d' -e '/^\[warpalign[] ]/d' -e 's/^\(\[M::[^]:]*\)::[0-9.]*\*[0-9.]*\]/\1]/' "$1"; }
for opts in "" "-c"; do
  n=${opts:-noc}
  $B/tools/minimap2-ref -t16 -x map-ont $opts $w/g.mmi $w/r.fq > $w/ref.$n 2> $w/ref.$n.err
  $B/tools/minimap2 -t16 -x map-ont $opts $w/g.mmi $w/r.fq > $w/on.$n 2> $w/on.$n.err
  cmp -s $w/ref.$n $w/on.$n && s=identical || s=DIFFERENT; echo "$n: $s"
  cmp -s <(filt $w/ref.$n.err) <(filt $w/on.$n.err) && echo "$n stderr: identical (filtered)" || echo "$n stderr: DIFFERENT"
  echo "$n ref: $(rt $w/ref.$n.err)"; echo "$n rebuilt: $(rt $w/on.$n.err)"
  head -5 $w/on.$n.err | grep -v Version
  cp $w/on.$n.err $OUT/on.$n.err
done
