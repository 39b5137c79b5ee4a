#!/usr/bin/env bash
# device call: chunk heads two ahead: ydrop_fuzz vector (200k + 200k), sweep speed on 800 calls, bench/lastz
set -u
C=$(dirname "$(realpath "$0")"); O=${OUT:-/tmp/o}; mkdir -p $O; d=$C/data
{ $C/bin/ydrop_fuzz 200000 2901 constrained vector; $C/bin/ydrop_fuzz 200000 2902 vector; } 2>&1 | tee $O/fuzz-vector.txt
for b in ydrop1 ydrop; do echo "== $b"; $C/bin/$b --dump $d/hp-free.dump.gz --take 800 --one-thread --reps 2 2>&1 | grep -E "calls|\(a\)|\(b\)|envelopes|mismatches" | grep -E "16 lanes|8 lanes|spec|mismatches"; done 2>&1 | tee $O/ydrop-sweeps-800.txt
OUT=$O/bench bench/lastz $C > /dev/null 2>&1; cat $O/bench/results.md
