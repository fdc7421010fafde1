#!/usr/bin/env bash
# Builds Parla's ZipVoice test package (test/fixtures/models/zipvoice) from the upstream projects' own code:
#   k2-fsa/ZipVoice (Apache-2.0): ZipVoiceDistill, its Zipformer modules, zipvoice/bin/onnx_export.py (run unmodified);
#   gemelo-ai/vocos (MIT): VocosBackbone, ISTFTHead (the vocoder sherpa-onnx runs after ZipVoice).
# Random weights, small dimensions (see build.py). Needs Debian's python3-torch, python3-onnx, python3-numpy.
#
#   scripts/models/zipvoice/build.sh [OUT]        (default OUT: test/fixtures/models/zipvoice)
#
# ZIPVOICE_GIT / VOCOS_GIT may name local git directories (bare or not) holding the pinned commits; otherwise
# both are cloned from GitHub into a temporary folder. Nothing upstream is written into the repo.
set -euo pipefail
PYTHON=${PYTHON:-/usr/bin/python3}

ZIPVOICE_COMMIT=2f7326fbfe999a3ad179e3f1af82a424d4a62819
VOCOS_COMMIT=c859e3b7b534f3776a357983029d34170ddd6fc3
PACKAGE=sherpa-onnx-zipvoice-distill-zh-en-emilia

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
out=$(realpath -m "${1:-$root/test/fixtures/models/zipvoice}")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

. "$here/../upstream-source.sh"

extract "${ZIPVOICE_GIT:-}" https://github.com/k2-fsa/ZipVoice "$ZIPVOICE_COMMIT" "$work/zipvoice-src" zipvoice LICENSE
extract "${VOCOS_GIT:-}" https://github.com/gemelo-ai/vocos "$VOCOS_COMMIT" "$work/vocos-src" vocos LICENSE
# vocos/__init__.py loads its pretrained wrapper (huggingface_hub, encodec): the build imports the modules it uses.
: > "$work/vocos-src/vocos/__init__.py"

rm -rf "${out:?}/$PACKAGE" "${out:?}/$PACKAGE.tar.bz2"
mkdir -p "$out/$PACKAGE"
ZIPVOICE_SRC="$work/zipvoice-src" VOCOS_SRC="$work/vocos-src" STAND_INS="$here/../stand-ins" \
  "$PYTHON" "$here/build.py" --work "$work/build" --out "$out/$PACKAGE"

"$PYTHON" - "$out" "$ZIPVOICE_COMMIT" "$VOCOS_COMMIT" "$PACKAGE" <<'PY'
import json, sys, torch, onnx
out, zipvoice, vocos, package = sys.argv[1:]
json.dump({
    "built_by": "scripts/models/zipvoice/build.sh",
    "weights": "random (torch.manual_seed), small dimensions; not a usable voice",
    "sources": [
        {"repo": "https://github.com/k2-fsa/ZipVoice", "commit": zipvoice, "license": "Apache-2.0",
         "used": "zipvoice/models/zipvoice_distill.py (ZipVoiceDistill), zipvoice.py, modules/*, utils/scaling_converter.py; zipvoice/bin/onnx_export.py run unmodified"},
        {"repo": "https://github.com/gemelo-ai/vocos", "commit": vocos, "license": "MIT",
         "used": "vocos/models.py (VocosBackbone), modules.py, heads.py (ISTFTHead, up to its inverse STFT)"},
    ],
    "stand_ins": "scripts/models/stand-ins/zipvoice_imports.py (safetensors, onnxruntime.quantization: no int8 copies, jieba, piper_phonemize, pypinyin, cn2an, inflect, lhotse, tensorboard, torchaudio, scipy: imported, not called)",
    "toolchain": {"torch": torch.__version__, "onnx": onnx.__version__, "python": sys.version.split()[0]},
    "packages": {package: "layout of sherpa-onnx's float ZipVoice release (encoder.onnx, decoder.onnx, tokens.txt, lexicon.txt) plus vocos_24khz.onnx, without espeak-ng-data (Parla supplies it)"},
}, open(f"{out}/provenance.json", "w"), indent=2)
PY
# Committed in release form (what `parla models add` and sherpa-onnx's release page take), a third of the size.
for dir in "$out"/*/; do
  name=$(basename "$dir")
  tar -C "$out" -cjf "$out/$name.tar.bz2" "$name"
  rm -rf "$dir"
done
du -ab "$out"
