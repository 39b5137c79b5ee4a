#!/usr/bin/env bash
# call 9: seed tests and the e2e minimap2 group on the GPU, E. coli runs (RSS), then the 333 Mb genome runs
OUT0=$OUT
mkdir -p $OUT/ecoli; OUT=$OUT0/ecoli target/seedprof/ecoli.sh > /dev/null 2>&1
OUT=$OUT0 target/seedprof/seedbench.sh > /dev/null 2>&1
cat $OUT0/log.txt $OUT0/ecoli/log.txt | grep -v "^gen\|^NVIDIA" | grep -E "result|e2e:|DIFFERENT|noc|-c |batches|seed-|ref:|identical"
