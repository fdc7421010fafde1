#!/usr/bin/env bash
# Builds Parla's sherpa-onnx VITS test packages (test/fixtures/models/vits-piper) from the upstream projects' code:
#   rhasspy/piper (MIT): piper_train's VitsModel/SynthesizerTrn and piper_train/export_onnx.py (run unmodified);
#   k2-fsa/sherpa-onnx (Apache-2.0): scripts/piper/add_meta_data.py (run unmodified).
# Random weights, small dimensions (see build.py). Needs Debian's python3-torch, python3-onnx, python3-numpy.
#
#   scripts/models/vits-piper/build.sh [OUT]        (default OUT: test/fixtures/models/vits-piper)
#
# PIPER_GIT / SHERPA_ONNX_GIT may name local git directories (bare or not) holding the pinned commits; otherwise
# both are cloned from GitHub into a temporary folder. Nothing upstream is written into the repo.
set -euo pipefail
PYTHON=${PYTHON:-/usr/bin/python3}

PIPER_COMMIT=73c04d81d5590ecc46e522de3601ce7fb29fc2be
SHERPA_ONNX_COMMIT=634265c9b57642fdd158120148785c89aa281c4b

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
out=$(realpath -m "${1:-$root/test/fixtures/models/vits-piper}")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

. "$here/../upstream-source.sh"

extract "${PIPER_GIT:-}" https://github.com/rhasspy/piper "$PIPER_COMMIT" "$work/piper-src" src/python/piper_train LICENSE.md
# monotonic_align's Cython core (training alignment) is built by setup.py; exporting never calls it.
core="$work/piper-src/src/python/piper_train/vits/monotonic_align/monotonic_align"
mkdir -p "$core"
printf 'def maximum_path_c(*args):\n    raise RuntimeError("monotonic_align core: training only")\n' > "$core/core.py"
extract "${SHERPA_ONNX_GIT:-}" https://github.com/k2-fsa/sherpa-onnx "$SHERPA_ONNX_COMMIT" "$work/sherpa" scripts/piper LICENSE

rm -rf "${out:?}"
mkdir -p "$out"
PIPER_SRC="$work/piper-src" SHERPA_SCRIPTS="$work/sherpa/scripts/piper" STAND_INS="$here/../stand-ins" \
  "$PYTHON" "$here/build.py" --work "$work/build" --out "$out"

"$PYTHON" - "$out" "$PIPER_COMMIT" "$SHERPA_ONNX_COMMIT" <<'PY'
import json, sys, torch, onnx
out, piper, sherpa = sys.argv[1:]
json.dump({
    "built_by": "scripts/models/vits-piper/build.sh",
    "weights": "random (torch.manual_seed), small dimensions; not a usable voice",
    "sources": [
        {"repo": "https://github.com/rhasspy/piper", "commit": piper, "license": "MIT",
         "used": "src/python/piper_train (VitsModel, SynthesizerTrn; the stochastic duration predictor's literal 192 channels set to the hidden size); piper_train/export_onnx.py run unmodified"},
        {"repo": "https://github.com/k2-fsa/sherpa-onnx", "commit": sherpa, "license": "Apache-2.0",
         "used": "scripts/piper/add_meta_data.py run unmodified (metadata, tokens.txt)"},
    ],
    "stand_ins": "scripts/models/stand-ins (pytorch_lightning LightningModule, librosa.filters, iso639 Lang); monotonic_align's Cython core (training only)",
    "toolchain": {"torch": torch.__version__, "onnx": onnx.__version__, "python": sys.version.split()[0]},
    "packages": {
        "vits-piper-en_US-parla-low": "layout of sherpa-onnx's vits-piper-en_US-*-low release, one speaker, without espeak-ng-data (Parla supplies it)",
        "vits-piper-en_US-parla2-low": "the same with two speakers (sid input, n_speakers 2)",
    },
}, open(f"{out}/provenance.json", "w"), indent=2)
PY
# Committed in release form (what `parla models add` and sherpa-onnx's release page take), a third of the size.
for dir in "$out"/*/; do
  name=$(basename "$dir")
  tar -C "$out" -cjf "$out/$name.tar.bz2" "$name"
  rm -rf "$dir"
done
du -ab "$out"
