#!/usr/bin/env bash
# call 3 (patch 0014, reading faster, on 699be1c): the 333 Mb genome and E. coli, reference and rebuilt, without
# -c (2 rounds) and with -c; E. coli without -c traced; 8 processes x -t2 on the 333 Mb genome (25 Mb of reads
# each, all at once), with and without -c; the other presets with -c on E. coli (map-pb CLR, map-hifi, lr:hq on
# HiFi-profile reads, splice): reference then rebuilt, outputs compared (call 2, the same without the first
# part, stopped at its limit: a bare `wait` also waits for the log's tee)
exec > >(tee "$OUT/log.txt") 2>&1
B=$PWD/target/benchcarry D=$B/data w=/tmp/w
mkdir -p $w
nvidia-smi --query-gpu=name --format=csv,noheader
t0=$SECONDS
$B/bin/gen genome --seed 7 --repeat-frac 39 --copy-div 0-0.3 -o $w/g.fa $D/ecoli_K12_MG1655.fasta.gz $D/hpylori_G27.fasta.gz \
  $D/hpylori_SJM180.fasta.gz $D/B_anthracis_Mslice.fasta.gz $D/D_melanogaster_2Rslice.fasta.gz
$B/tools/minimap2-ref -t16 -x map-ont -d $w/g.mmi $w/g.fa 2> $w/idx.err
$B/bin/gen reads --ref $w/g.fa --seed 7 --profile $D/ecoli_ultralong_R9_nanotest.fastq.gz --bases 200000000 -o $w/r.fq --stats $w/r.stats
$B/bin/gen reads --ref $D/ecoli_K12_MG1655.fasta.gz --seed 7 --profile $D/ecoli_ultralong_R9_nanotest.fastq.gz --bases 200000000 -o $w/r200.fq --stats $w/r200.stats
ec=$D/ecoli_K12_MG1655.fasta.gz
$B/bin/gen reads --ref $ec --seed 7 --mode clr --profile $D/ecoli_sequel_clr_subreads.fastq.gz --bases 100000000 -o $w/clr.fq > /dev/null 2>&1
$B/bin/gen reads --ref $ec --seed 7 --mode hifi --profile $D/ecoli_sequel_clr_subreads.fastq.gz --len 15000 --bases 100000000 -o $w/hifi.fq > /dev/null 2>&1
$B/bin/gen reads --ref $ec --seed 7 --spliced --genes 2000 --profile $D/ecoli_R9_medaka_test_reads.fasta.gz --bases 40000000 -o $w/splice.fq > /dev/null 2>&1
# 8 pieces of the 333 Mb genome's reads, 25 Mb each
awk -v w=$w 'NR % 4 == 1 { p = int((NR - 1) / 4) % 8 } { print > (w "/piece" p ".fq") }' $w/r.fq
echo "inputs $((SECONDS - t0)) s"
head -c 200000 $w/g.fa > $w/warm.fa
WARPALIGN_BACKEND=gpu $B/tools/minimap2 -t16 -x map-ont -c $w/warm.fa $w/warm.fa > /dev/null 2>&1
rt() { sed -n 's/.*Real time: \([0-9.]*\) sec; CPU: \([0-9.]*\) sec; Peak RSS: \([0-9.]*\) GB.*/\1 s, CPU \2 s, RSS \3 GB/p' "$1"; }
run() { # label target query rounds options...
  local label=$1 ref=$2 q=$3 rounds=$4; shift 4
  for round in $(seq $rounds); do
    $B/tools/minimap2-ref -t16 "$@" $ref $q > $w/ref.out 2> $w/ref.err
    $B/tools/minimap2 -t16 "$@" $ref $q > $w/on.out 2> $w/on.err
    cmp -s $w/ref.out $w/on.out && s=identical || s=DIFFERENT
    echo "$label round $round: ref $(rt $w/ref.err) | minimap2 $(rt $w/on.err) $s"
  done
}
run "333Mb noc" $w/g.mmi $w/r.fq 2 -x map-ont
run "ecoli noc" $ec $w/r200.fq 2 -x map-ont
run "333Mb -c" $w/g.mmi $w/r.fq 1 -x map-ont -c
run "ecoli -c" $ec $w/r200.fq 1 -x map-ont -c
WARPALIGN_TRACE=1 WARPALIGN_SEED_GPU_PROFILE=1 $B/tools/minimap2 -t16 -x map-ont $ec $w/r200.fq 2> $OUT/trace.ecoli.noc.err > $w/ec.trace.out
$B/tools/minimap2-ref -t16 -x map-ont $ec $w/r200.fq 2> $OUT/ref.ecoli.noc.err > $w/ec.ref.out
cmp -s $w/ec.trace.out $w/ec.ref.out && echo "ecoli noc traced: identical" || echo "ecoli noc traced: DIFFERENT"
echo "ecoli noc: ref $(rt $OUT/ref.ecoli.noc.err) | traced rebuilt $(rt $OUT/trace.ecoli.noc.err)"
for opts in "" "-c"; do
  for v in minimap2-ref minimap2; do
    t0=$(date +%s.%N)
    pids=()
    for p in 0 1 2 3 4 5 6 7; do
      $B/tools/$v -t2 -x map-ont $opts $w/g.mmi $w/piece$p.fq > $w/$v.p$p.out 2> $w/$v.p$p.err &
      pids+=($!)
    done
    wait "${pids[@]}"
    echo "8 x -t2 ${opts:-noc} $v: $(awk -v a=$t0 -v b=$(date +%s.%N) 'BEGIN { printf "%.2f", b - a }') s wall; max RSS $(for p in 0 1 2 3 4 5 6 7; do rt $w/$v.p$p.err; done | sed 's/.*RSS //' | sort -n | tail -1)"
  done
  d=0; for p in 0 1 2 3 4 5 6 7; do cmp -s $w/minimap2-ref.p$p.out $w/minimap2.p$p.out || d=$((d + 1)); done
  echo "8 x -t2 ${opts:-noc}: $d pieces differ"
done
preset() { # label preset reads
  $B/tools/minimap2-ref -t16 -x $2 -c $ec $3 > $w/pr.ref 2> $w/pr.ref.err
  $B/tools/minimap2 -t16 -x $2 -c $ec $3 > $w/pr.new 2> $w/pr.new.err
  cmp -s $w/pr.ref $w/pr.new && s=identical || s=DIFFERENT
  echo "$1 -c: ref $(rt $w/pr.ref.err) | rebuilt $(rt $w/pr.new.err) $s"
}
preset "clr 100Mb map-pb" map-pb $w/clr.fq
preset "hifi 100Mb map-hifi" map-hifi $w/hifi.fq
preset "hifi 100Mb lr:hq" lr:hq $w/hifi.fq
preset "splice 40Mb" splice $w/splice.fq
