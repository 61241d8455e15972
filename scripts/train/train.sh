#!/usr/bin/env bash
# Trains the lab's tiny models (one per positional encoding) and writes their weights and PyTorch
# fixtures to web/lab/models/. Installs Debian's python3-torch with apt when missing (never run by
# npm test). Each model trains under the shared CPU lock, one at a time, on one thread.
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
models=${MODELS:-"rope alibi t5 nope sinusoidal learned kerple fire"}
for m in $models; do
  flock "$lock" /usr/bin/python3 scripts/train/train.py --model "$m" "$@"
done
flock "$lock" /usr/bin/python3 scripts/train/train.py --summary
# docs/lab.md's tables, computed by the runner (posenc) from the weights just written
if [ -f dist/posenc_wasm.mjs ]; then
  flock "$lock" node scripts/train/table.mjs
else
  echo "posenc train: build the package (npm run build) and run node scripts/train/table.mjs for docs/lab.md's tables"
fi
