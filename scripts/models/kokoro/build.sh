#!/usr/bin/env bash
# Builds Parla's Kokoro test packages (test/fixtures/models/kokoro) from the upstream projects' own code:
#   hexgrad/kokoro (Apache-2.0): KModel, its modules, istftnet and CustomSTFT;
#   k2-fsa/sherpa-onnx (Apache-2.0): scripts/kokoro/{v0.19,v1.0} export_onnx.py, add_meta_data.py, generate_tokens.py.
# Random weights, small dimensions (see build.py). Needs Debian's python3-torch, python3-onnx, python3-numpy.
#
#   scripts/models/kokoro/build.sh [OUT]        (default OUT: test/fixtures/models/kokoro)
#   scripts/models/kokoro/build.sh --full OUT   Kokoro-82M's own dimensions (v1.0 config, ~325 MB), the
#                                               multi-language layout only: for benchmarks, never committed
#
# KOKORO_GIT / SHERPA_ONNX_GIT may name local git directories (bare or not) holding the pinned commits;
# otherwise both are cloned from GitHub into a temporary folder. Nothing upstream is written into the repo.
set -euo pipefail
# Debian's interpreter (its python3-torch), not one a version manager puts first on PATH.
PYTHON=${PYTHON:-/usr/bin/python3}

KOKORO_COMMIT=dfb907a02bba8152ca444717ca5d78747ccb4bec
SHERPA_ONNX_COMMIT=634265c9b57642fdd158120148785c89aa281c4b

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
full=()
if [ "${1:-}" = --full ]; then full=(--full); shift; [ -n "${1:-}" ] || { echo "--full needs OUT" >&2; exit 2; }; fi
out=$(realpath -m "${1:-$root/test/fixtures/models/kokoro}")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

. "$here/../upstream-source.sh"

extract "${KOKORO_GIT:-}" https://github.com/hexgrad/kokoro "$KOKORO_COMMIT" "$work/kokoro-src" \
  kokoro/model.py kokoro/modules.py kokoro/istftnet.py kokoro/custom_stft.py LICENSE
# hexgrad/kokoro's own __init__ also loads its pipeline (misaki, not needed to build the model).
echo 'from .model import KModel' > "$work/kokoro-src/kokoro/__init__.py"
extract "${SHERPA_ONNX_GIT:-}" https://github.com/k2-fsa/sherpa-onnx "$SHERPA_ONNX_COMMIT" "$work/sherpa" \
  scripts/kokoro/v0.19 scripts/kokoro/v1.0 LICENSE

mkdir -p "$out"
KOKORO_SRC="$work/kokoro-src" SHERPA_SCRIPTS="$work/sherpa/scripts/kokoro" STAND_INS="$here/../stand-ins" \
  "$PYTHON" "$here/build.py" --work "$work/build" --out "$out" "${full[@]}"
if [ ${#full[@]} -gt 0 ]; then du -ab "$out"; exit 0; fi

"$PYTHON" - "$out" "$KOKORO_COMMIT" "$SHERPA_ONNX_COMMIT" <<'PY'
import json, sys, torch, onnx
out, kokoro, sherpa = sys.argv[1:]
json.dump({
    "built_by": "scripts/models/kokoro/build.sh",
    "weights": "random (torch.manual_seed), small dimensions; not a usable voice",
    "sources": [
        {"repo": "https://github.com/hexgrad/kokoro", "commit": kokoro, "license": "Apache-2.0",
         "used": "kokoro/model.py (KModel, KModelForONNX), modules.py, istftnet.py (Decoder channel literals replaced by config values), custom_stft.py"},
        {"repo": "https://github.com/k2-fsa/sherpa-onnx", "commit": sherpa, "license": "Apache-2.0",
         "used": "scripts/kokoro/v1.0/export_onnx.py, add_meta_data.py, generate_tokens.py; scripts/kokoro/v0.19/add_meta_data.py, generate_tokens.py (run unmodified)"},
    ],
    "stand_ins": "scripts/models/stand-ins (transformers AlbertConfig/AlbertModel, huggingface_hub, loguru; torch_compat for weight_norm)",
    "toolchain": {"torch": torch.__version__, "onnx": onnx.__version__, "python": sys.version.split()[0]},
    "packages": {
        "kokoro-en-v0_19": "layout of sherpa-onnx's kokoro-en-v0_19 (metadata version 1), without espeak-ng-data (Parla supplies it)",
        "kokoro-multi-lang-v1_0": "layout of sherpa-onnx's kokoro-multi-lang-v1_0 (metadata version 2, lexicon-us-en.txt, lexicon-zh.txt), without espeak-ng-data, dict/ and the rule FSTs",
    },
}, open(f"{out}/provenance.json", "w"), indent=2)
PY
du -ab "$out"
