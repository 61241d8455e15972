#!/usr/bin/env bash
# Trains the lab's tiny models (one per positional encoding, 5 seeds each; the RoPE model's PI fine-tune
# with it) and writes seed 1's weights and PyTorch fixtures and every seed's results to web/lab/models/.
# Installs Debian's python3-torch with apt when missing (never run by npm test). Each model trains under
# the shared CPU lock, one at a time, on one thread, at the lowest priority (nice 19): the machine's
# other work comes first. MODELS="rope alibi" or SEEDS=1,2 train a part; --summary merges what is staged.
set -euo pipefail
cd "$(dirname "$0")/../.."

# python3-torch links the system BLAS; without OpenBLAS that is the reference BLAS (about 4x slower here)
if ! /usr/bin/python3 -c "import torch" 2>/dev/null || ! dpkg-query -W -f='${Status}' libopenblas0-pthread 2>/dev/null | grep -q "install ok installed"; then
  echo "posenc train: installing python3-torch (Debian)"
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq python3-torch python3-numpy libopenblas0-pthread >/dev/null
fi

export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1
lock=/tmp/posenc-cpu.lock
models=${MODELS:-"rope alibi t5 nope sinusoidal learned kerple fire fox stickbreaking"}
seeds=${SEEDS:-1,2,3,4,5}
start=$(date +%s)
for m in $models; do
  flock "$lock" nice -n 19 /usr/bin/python3 scripts/train/train.py --model "$m" --seeds "$seeds" "$@"
done
flock "$lock" /usr/bin/python3 scripts/train/train.py --summary
echo "posenc train: $(( ($(date +%s) - start) / 60 )) min wall time"
# docs/lab.md's and README.md's tables, computed from results.json and (the RoPE schedules) by the runner
if [ -f dist/posenc_wasm.mjs ]; then
  flock "$lock" node scripts/train/table.mjs --write
else
  echo "posenc train: build the package (npm run build) and run node scripts/train/table.mjs for the tables"
fi
