#!/usr/bin/env bash
# Builds Parla's lexicon-based sherpa-onnx VITS test package (test/fixtures/models/vits-ljs) from the upstreams' code:
#   jaywalnut310/vits (MIT): SynthesizerTrn, its modules, utils.py, text/symbols.py, configs/ljs_base.json;
#   k2-fsa/sherpa-onnx (Apache-2.0): scripts/vits/export-onnx-ljs.py (run unmodified).
# Random weights, small dimensions (see build.py). Needs Debian's python3-torch, python3-onnx, python3-numpy.
#
#   scripts/models/vits-ljs/build.sh [OUT]        (default OUT: test/fixtures/models/vits-ljs)
#
# VITS_GIT / SHERPA_ONNX_GIT may name local git directories (bare or not) holding the pinned commits; otherwise
# both are cloned from GitHub into a temporary folder. Nothing upstream is written into the repo.
set -euo pipefail
PYTHON=${PYTHON:-/usr/bin/python3}

VITS_COMMIT=2e561ba58618d021b5b8323d3765880f7e0ecfdb
SHERPA_ONNX_COMMIT=634265c9b57642fdd158120148785c89aa281c4b

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
out=$(realpath -m "${1:-$root/test/fixtures/models/vits-ljs}")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

. "$here/../upstream-source.sh"

extract "${VITS_GIT:-}" https://github.com/jaywalnut310/vits "$VITS_COMMIT" "$work/vits-src" \
  attentions.py commons.py models.py modules.py transforms.py utils.py monotonic_align/__init__.py text configs/ljs_base.json LICENSE
# monotonic_align's Cython core (training alignment) is built by its setup.py; exporting never calls it.
mkdir -p "$work/vits-src/monotonic_align/monotonic_align"
printf 'def maximum_path_c(*args):\n    raise RuntimeError("monotonic_align core: training only")\n' > "$work/vits-src/monotonic_align/monotonic_align/core.py"
: > "$work/vits-src/monotonic_align/monotonic_align/__init__.py"
extract "${SHERPA_ONNX_GIT:-}" https://github.com/k2-fsa/sherpa-onnx "$SHERPA_ONNX_COMMIT" "$work/sherpa" scripts/vits LICENSE

rm -rf "${out:?}"
mkdir -p "$out"
VITS_SRC="$work/vits-src" SHERPA_SCRIPTS="$work/sherpa/scripts/vits" STAND_INS="$here/../stand-ins" \
  "$PYTHON" "$here/build.py" --work "$work/build" --out "$out"

"$PYTHON" - "$out" "$VITS_COMMIT" "$SHERPA_ONNX_COMMIT" <<'PY'
import json, sys, torch, onnx
out, vits, sherpa = sys.argv[1:]
json.dump({
    "built_by": "scripts/models/vits-ljs/build.sh",
    "weights": "random (torch.manual_seed), small dimensions; not a usable voice",
    "sources": [
        {"repo": "https://github.com/jaywalnut310/vits", "commit": vits, "license": "MIT",
         "used": "models.py (SynthesizerTrn; the stochastic duration predictor's literal 192 channels set to the hidden size), modules, utils.py, text/symbols.py, configs/ljs_base.json (smaller sizes)"},
        {"repo": "https://github.com/k2-fsa/sherpa-onnx", "commit": sherpa, "license": "Apache-2.0",
         "used": "scripts/vits/export-onnx-ljs.py run unmodified (export, metadata, tokens)"},
    ],
    "stand_ins": "scripts/models/stand-ins/vits_imports.py (onnxruntime.quantization: no int8 copy; phonemizer: the trace's example text lower-cased; unidecode; scipy.io.wavfile); monotonic_align's Cython core (training only)",
    "toolchain": {"torch": torch.__version__, "onnx": onnx.__version__, "python": sys.version.split()[0]},
    "packages": {"vits-ljs": "layout of sherpa-onnx's vits-ljs release (vits-ljs.onnx, tokens.txt, lexicon.txt), float model only"},
}, open(f"{out}/provenance.json", "w"), indent=2)
PY
for dir in "$out"/*/; do
  name=$(basename "$dir")
  tar -C "$out" -cjf "$out/$name.tar.bz2" "$name"
  rm -rf "$dir"
done
du -ab "$out"
