#!/usr/bin/env bash
# Builds Piper test voices from rhasspy/piper's own training code (MIT): src/python/piper_train's VitsModel /
# vits/models.py SynthesizerTrn with random weights, exported by its export_onnx.py, unmodified (see build.py).
# Needs Debian's python3-torch, python3-onnx, python3-numpy.
#
#   scripts/models/piper/build.sh [OUT]          small voices as <name>.tar.gz (default OUT: test/fixtures/models/piper)
#   scripts/models/piper/build.sh --medium DIR   one voice with piper's "medium" hyper-parameters (~63 MB),
#                                                for benchmarks; never committed
#
# PIPER_GIT may name a local git directory (bare or not) holding the pinned commit; otherwise it is cloned from
# GitHub into a temporary folder. Nothing upstream is written into the repo.
set -euo pipefail
PYTHON=${PYTHON:-/usr/bin/python3}

PIPER_COMMIT=73c04d81d5590ecc46e522de3601ce7fb29fc2be

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
medium=()
if [ "${1:-}" = "--medium" ]; then
  [ -n "${2:-}" ] || { echo "usage: $0 --medium DIR" >&2; exit 2; }
  medium=(--medium); out=$(realpath -m "$2")
else
  out=$(realpath -m "${1:-$root/test/fixtures/models/piper}")
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

git_dir=${PIPER_GIT:-}
if [ -z "$git_dir" ]; then
  git clone --quiet --filter=blob:none --no-checkout https://github.com/rhasspy/piper "$work/clone-piper" \
    || { echo "cannot clone rhasspy/piper; set PIPER_GIT to a local git directory holding $PIPER_COMMIT" >&2; exit 1; }
  git_dir="$work/clone-piper/.git"
fi
git --git-dir="$git_dir" cat-file -e "$PIPER_COMMIT^{commit}" 2>/dev/null \
  || { echo "$git_dir does not hold rhasspy/piper commit $PIPER_COMMIT" >&2; exit 1; }
mkdir -p "$work/piper"
git --git-dir="$git_dir" archive "$PIPER_COMMIT" src/python/piper_train etc/test_voice.onnx.json LICENSE.md \
  | tar -x -C "$work/piper"
# The Cython alignment extension (training only) is replaced by a stand-in module.
mkdir -p "$work/piper/src/python/piper_train/vits/monotonic_align/monotonic_align"
touch "$work/piper/src/python/piper_train/vits/monotonic_align/monotonic_align/__init__.py"
cp "$here/../stand-ins/piper_monotonic_align_core.py" "$work/piper/src/python/piper_train/vits/monotonic_align/monotonic_align/core.py"

mkdir -p "$out"
PIPER_SRC="$work/piper/src/python" STAND_INS="$here/../stand-ins" PIPER_TEST_VOICE_JSON="$work/piper/etc/test_voice.onnx.json" \
  "$PYTHON" "$here/build.py" --work "$work/build" --out "$out" "${medium[@]}"

"$PYTHON" - "$out" "$PIPER_COMMIT" "${medium[*]:-small}" <<'PY'
import json, sys, torch, onnx
out, commit, size = sys.argv[1:]
json.dump({
    "built_by": "scripts/models/piper/build.sh" + (" --medium" if size == "--medium" else ""),
    "weights": "random (torch.manual_seed); " + ("piper's medium hyper-parameters" if size == "--medium" else "reduced channel counts (build.py SMALL)") + "; not a usable voice",
    "sources": [
        {"repo": "https://github.com/rhasspy/piper", "commit": commit, "license": "MIT",
         "used": "src/python/piper_train: vits/lightning.py VitsModel, vits/models.py SynthesizerTrn and their modules, export_onnx.py (run unmodified); etc/test_voice.onnx.json (phoneme_id_map)"},
    ],
    "stand_ins": "scripts/models/stand-ins (pytorch_lightning LightningModule, librosa.filters, piper_monotonic_align_core for the Cython extension)",
    "toolchain": {"torch": torch.__version__, "onnx": onnx.__version__, "python": sys.version.split()[0]},
}, open(f"{out}/provenance.json", "w"), indent=2)
PY
# The small voices are committed as release-style archives (one folder each; `parla models add` takes them
# as they are, tests unpack them): gzip halves the graph's protobuf, and the archives are reproducible.
if [ ${#medium[@]} -eq 0 ]; then
  for dir in "$out"/*/; do
    name=$(basename "$dir")
    tar --sort=name --owner=0 --group=0 --numeric-owner --mtime=@0 -C "$out" -c "$name" | gzip -9n > "$out/$name.tar.gz"
    rm -rf "$dir"
  done
fi
du -ab "$out"
