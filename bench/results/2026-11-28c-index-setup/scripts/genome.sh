#!/usr/bin/env bash
# the 333 Mb genome (gen genome of the five genomes, 96% diverged repeat copies), its index built once by the
# reference (-x map-ont -d), 200 Mb of UL-profile reads; reference, rebuilt with upstream's index load, rebuilt
B=$PWD/target/benchcarry D=$B/data w=/tmp/w
mkdir -p $w
t0=$SECONDS
[ -e $w/g.mmi ] || {
$B/bin/gen genome --seed 7 --repeat-frac 39 --copy-div 0-0.3 -o $w/g.fa $D/ecoli_K12_MG1655.fasta.gz $D/hpylori_G27.fasta.gz \
  $D/hpylori_SJM180.fasta.gz $D/B_anthracis_Mslice.fasta.gz $D/D_melanogaster_2Rslice.fasta.gz
$B/tools/minimap2-ref -t16 -x map-ont -d $w/g.mmi $w/g.fa 2> $w/idx.err; tail -1 $w/idx.err
$B/bin/gen reads --ref $w/g.fa --seed 7 --profile $D/ecoli_ultralong_R9_nanotest.fastq.gz --bases ${BASES:-200000000} -o $w/r.fq --stats $w/r.stats
}
echo "inputs $((SECONDS - t0)) s"
head -c 200000 $w/g.fa > $w/warm.fa
WARPALIGN_BACKEND=gpu $B/tools/minimap2 -t16 -x map-ont -c $w/warm.fa $w/warm.fa > /dev/null 2>&1
rt() { sed -n 's/.*Real time: \([0-9.]*\) sec; CPU: \([0-9.]*\) sec; Peak RSS: \([0-9.]*\) GB.*/\1 s, CPU \2 s, RSS \3 GB/p' "$1"; }
setup() { grep -h "loaded/built\|mid_occ =\|distinct minimizers\|index is on the GPU" "$1" | sed 's/ (.*//; s/^\[M::\([^:]*\)::\([0-9.]*\)\*[0-9.]*\] /\1 \2: /' | tr '\n' ';'; echo; }
for opts in "" "-c"; do
  n=${opts:-noc}
  $B/tools/minimap2-ref -t16 -x map-ont $opts $w/g.mmi $w/r.fq > $w/ref.$n 2> $w/ref.$n.err
  WARPALIGN_INDEX_LOAD=upstream $B/tools/minimap2 -t16 -x map-ont $opts $w/g.mmi $w/r.fq > $w/up.$n 2> $w/up.$n.err
  $B/tools/minimap2 -t16 -x map-ont $opts $w/g.mmi $w/r.fq > $w/on.$n 2> $w/on.$n.err
  for v in up on; do cmp -s $w/ref.$n $w/$v.$n && s=identical || s=DIFFERENT; echo "genome $n $v: $s"; done
  for v in ref up on; do echo "genome $n $v: $(rt $w/$v.$n.err)"; echo "  setup: $(setup $w/$v.$n.err)"; done
  grep -h 'seeded in one batch' $w/on.$n.err | awk '{ n += $2; s += $(NF-1) } END { print "  seed batches:", NR, "reads", n, "sec", s }'
  cp $w/on.$n.err $OUT/genome.on.$n.err; cp $w/ref.$n.err $OUT/genome.ref.$n.err
done
