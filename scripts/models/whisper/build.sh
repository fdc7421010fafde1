#!/usr/bin/env bash
# Builds Parla's Whisper test packages from the upstream projects' own code:
#   openai/whisper (MIT): whisper/model.py, tokenizer.py, audio.py, utils.py, assets (tokenizer ranks, mel filters);
#   k2-fsa/sherpa-onnx (Apache-2.0): scripts/whisper/export-onnx.py, run unmodified.
# Random weights with a planted sentence, small width (see build.py). Needs Debian's python3-torch, python3-onnx.
#
#   scripts/models/whisper/build.sh [OUT]     (default OUT: test/fixtures/models/whisper)
#   scripts/models/whisper/build.sh --dims tiny|base|tiny.en|base.en OUT
#                                             one package at openai/whisper's published dimensions (tiny 153 MB,
#                                             base 292 MB as float32), unpacked in OUT/sherpa-onnx-whisper-<dims>,
#                                             for benchmarks; never committed
#
# OUT receives one .tar.bz2 per package, as sherpa-onnx releases them, and the wide encoder of the mismatched
# pair. WHISPER_GIT / SHERPA_ONNX_GIT may name local git directories holding the pinned commits; otherwise both
# are cloned from GitHub into a temporary folder. Nothing upstream is written into the repo.
set -euo pipefail
PYTHON=${PYTHON:-/usr/bin/python3}

WHISPER_COMMIT=c0d2f624c09dc18e709e37c2ad90c039a4eb72a2
SHERPA_ONNX_COMMIT=634265c9b57642fdd158120148785c89aa281c4b

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
dims=
if [ "${1:-}" = --dims ]; then
  dims=${2:-}; [ -n "$dims" ] && [ -n "${3:-}" ] || { echo "usage: $0 --dims tiny|base|tiny.en|base.en OUT" >&2; exit 2; }
  shift 2
fi
out=$(realpath -m "${1:-$root/test/fixtures/models/whisper}")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

. "$here/../upstream-source.sh"

extract "${WHISPER_GIT:-}" https://github.com/openai/whisper "$WHISPER_COMMIT" "$work/whisper-src" \
  whisper/model.py whisper/tokenizer.py whisper/audio.py whisper/utils.py whisper/assets LICENSE
# openai/whisper's own __init__ also loads decoding/transcribe (tqdm, numba, triton, downloads): the build's
# package exposes the modules export-onnx.py uses, and load_model returns the model build.py made.
cat > "$work/whisper-src/whisper/__init__.py" <<'PY'
from . import audio, model, tokenizer
from .audio import log_mel_spectrogram, pad_or_trim
def load_model(name):
    raise RuntimeError("build.py replaces load_model")
PY
for m in decoding transcribe; do
  printf 'def _absent(*a, **k):\n    raise RuntimeError("not part of the ONNX build")\ndecode = detect_language = transcribe = _absent\n' \
    > "$work/whisper-src/whisper/$m.py"
done
extract "${SHERPA_ONNX_GIT:-}" https://github.com/k2-fsa/sherpa-onnx "$SHERPA_ONNX_COMMIT" "$work/sherpa" \
  scripts/whisper/export-onnx.py LICENSE

mkdir -p "$work/out" "$out"
if [ -n "$dims" ]; then
  PYTHONPATH="$work/whisper-src:$here/../stand-ins" "$PYTHON" "$here/build.py" --dims "$dims" \
    --work "$work/build" --out "$out" --export-script "$work/sherpa/scripts/whisper/export-onnx.py"
  "$PYTHON" - "$out/sherpa-onnx-whisper-$dims" "$dims" "$WHISPER_COMMIT" "$SHERPA_ONNX_COMMIT" <<'PY'
import json, sys, torch, onnx
out, dims, whisper, sherpa = sys.argv[1:]
json.dump({
    "built_by": f"scripts/models/whisper/build.sh --dims {dims}",
    "weights": f"random (torch.manual_seed) at openai/whisper's published '{dims}' ModelDimensions, with a planted"
               " sentence of about 100 tokens then end-of-text (build.py); float32 only (no int8); not a usable recognizer",
    "sources": [
        {"repo": "https://github.com/openai/whisper", "commit": whisper, "license": "MIT"},
        {"repo": "https://github.com/k2-fsa/sherpa-onnx", "commit": sherpa, "license": "Apache-2.0",
         "used": "scripts/whisper/export-onnx.py (run unmodified)"},
    ],
    "toolchain": {"torch": torch.__version__, "onnx": onnx.__version__, "python": sys.version.split()[0]},
}, open(f"{out}/provenance.json", "w"), indent=2)
PY
  du -ab "$out/sherpa-onnx-whisper-$dims"
  exit 0
fi
for variant in sherpa-onnx-whisper-tiny.en sherpa-onnx-whisper-tiny-it sherpa-onnx-whisper-tiny-zh whisper-wide-encoder; do
  PYTHONPATH="$work/whisper-src:$here/../stand-ins" "$PYTHON" "$here/build.py" --variant "$variant" \
    --work "$work/build" --out "$work/out" --export-script "$work/sherpa/scripts/whisper/export-onnx.py"
done

for pkg in "$work"/out/sherpa-onnx-whisper-*; do
  tar -C "$work/out" -cjf "$out/$(basename "$pkg").tar.bz2" "$(basename "$pkg")"
done
cp "$work/out/whisper-wide-encoder/tiny-encoder.onnx" "$out/wide-tiny-encoder.onnx"

"$PYTHON" - "$out" "$WHISPER_COMMIT" "$SHERPA_ONNX_COMMIT" <<'PY'
import json, sys, torch, onnx
out, whisper, sherpa = sys.argv[1:]
json.dump({
    "built_by": "scripts/models/whisper/build.sh",
    "weights": "random (torch.manual_seed) with a planted sentence and language (build.py); width 4; not a usable recognizer",
    "sources": [
        {"repo": "https://github.com/openai/whisper", "commit": whisper, "license": "MIT",
         "used": "whisper/model.py (Whisper, AudioEncoder, TextDecoder), tokenizer.py, audio.py, utils.py, assets/*.tiktoken, assets/mel_filters.npz (unmodified)"},
        {"repo": "https://github.com/k2-fsa/sherpa-onnx", "commit": sherpa, "license": "Apache-2.0",
         "used": "scripts/whisper/export-onnx.py (run unmodified: opset 17, encoder metadata, <name>-tokens.txt)"},
    ],
    "stand_ins": "scripts/models/stand-ins (tiktoken, onnxruntime.quantization; the whisper package __init__/decoding/transcribe written by build.sh)",
    "toolchain": {"torch": torch.__version__, "onnx": onnx.__version__, "python": sys.version.split()[0]},
    "packages": {
        "sherpa-onnx-whisper-tiny.en.tar.bz2": "tiny.en layout (gpt2 tokens, 51,864-token vocabulary); says ' Hello world, this is a test.'",
        "sherpa-onnx-whisper-tiny-it.tar.bz2": "tiny layout (multilingual, 99 languages); detects 'it', says ' Ho visto i bambini e poi'",
        "sherpa-onnx-whisper-tiny-zh.tar.bz2": "tiny layout; detects 'zh', says '你好。我们的语音识别服务器' (characters split across byte tokens)",
        "wide-tiny-encoder.onnx": "a tiny encoder of width 6: with a width-4 decoder it is a pair that does not match",
    },
}, open(f"{out}/provenance.json", "w"), indent=2, ensure_ascii=False)
PY
du -ab "$out"
