#!/usr/bin/env bash
# The ksw cell update's SASS for sm_90 without a GPU: probe.cu compiled by NVRTC (pip's nvidia-cuda-nvrtc, as
# tests/nvrtc-path finds it), disassembled by cuobjdump and nvdisasm from pip's wheels. Prints each kernel's
# branches (the loop's bounds) and its instruction mix. Run from the repo root.
set -euo pipefail
tmp=$(mktemp -d)
pip download -q --no-deps nvidia-cuda-cuobjdump nvidia-cuda-nvdisasm -d "$tmp"
for w in "$tmp"/*.whl; do unzip -q -o "$w" -d "$tmp/x"; done
export PATH=$tmp/x/nvidia/cu13/bin:$PATH LD_LIBRARY_PATH=$(tests/nvrtc-path):${LD_LIBRARY_PATH:-}
python3 bench/results/2026-11-29a-lookups/probe/nvrtc.py "$(tests/nvrtc-path)" bench/results/2026-11-29a-lookups/probe/probe.cu "$tmp/probe.cubin"
cuobjdump -sass "$tmp/probe.cubin" > "$tmp/probe.sass"
grep -n "Function\|BRA" "$tmp/probe.sass"
for k in k8 k16; do
  echo "$k:"; awk -v k="$k" '$0 ~ "Function : "k"$" {p=1; next} /Function :/ {p=0} p' "$tmp/probe.sass" \
    | grep -oE '^\s+/\*[0-9a-f]+\*/\s+(@!?P[0-9] )?[A-Z0-9.]+' | awk '{print $NF}' | sed 's/\..*//' | sort | uniq -c | sort -rn | head -8
done
# ksw_extd2_dpw2 alone (mode 1, approximate max): its branches, the anti-diagonal loop's back edge last but two
python3 bench/results/2026-11-29a-lookups/probe/one_dpw.py "$tmp/dpw.cu"
python3 bench/results/2026-11-29a-lookups/probe/nvrtc.py "$(tests/nvrtc-path)" "$tmp/dpw.cu" "$tmp/dpw.cubin"
cuobjdump -sass "$tmp/dpw.cubin" | awk '/Function : ksw_extd2_dpw2$/ {p=1; next} /Function :/ {p=0} p' > "$tmp/dpw.sass"
echo "ksw_extd2_dpw2: $(grep -cE '^\s+/\*[0-9a-f]+\*/\s+[A-Z@]' "$tmp/dpw.sass") instructions; branches, votes and shuffles:"
grep -E ' BRA| EXIT|VOTE|SHFL' "$tmp/dpw.sass" | awk '{print $1, $2, $3, $4}'
