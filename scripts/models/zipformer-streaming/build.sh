#!/usr/bin/env bash
# Builds Parla's streaming Zipformer test package (test/fixtures/models/zipformer-streaming) from the upstream
# project's own code:
#   k2-fsa/icefall (Apache-2.0): egs/librispeech/ASR/zipformer (train.py's get_model, zipformer.py, model.py,
#   decoder.py, joiner.py, subsampling.py, scaling.py, scaling_converter.py) and its export-onnx-streaming.py,
#   run unmodified; icefall/utils.py, checkpoint.py, env.py and the other icefall modules train.py imports.
# Random weights, small widths (see build.py). Needs Debian's python3-torch, python3-onnx, python3-numpy.
#
#   scripts/models/zipformer-streaming/build.sh [OUT]   (default OUT: test/fixtures/models/zipformer-streaming)
#
#   ZIPFORMER_SIZE=published scripts/models/zipformer-streaming/build.sh OUT
#
# ZIPFORMER_SIZE=published builds, still with random weights, at the sizes of the model sherpa-onnx publishes as
# sherpa-onnx-streaming-zipformer-en-2023-06-26 (icefall's streaming LibriSpeech Zipformer, 66 M parameters:
# train.py's defaults, layers 2,2,3,4,3,2, encoder widths 192-512, decoder and joiner 512, vocabulary 500,
# chunk 16, left context 128), as the package sherpa-onnx-streaming-zipformer-parla-published-size (a 261 MB
# encoder as published, a 248 MB archive), for measuring a real-sized model's speed
# (npm run bench:live-asr -- --model DIR). It is never committed: give it an OUT outside the repository. The
# export takes about 2 minutes on 2 cores.
#
# OUT receives the package as a sherpa-onnx release archive (.tar.bz2) and provenance.json. ICEFALL_GIT may
# name a local git directory (bare or not) holding the pinned commit; otherwise icefall is cloned from GitHub
# into a temporary folder. Nothing upstream is written into the repo.
set -euo pipefail
size=${ZIPFORMER_SIZE:-test}
case "$size" in
  test|published) ;;
  *) echo "ZIPFORMER_SIZE must be test or published, not $size" >&2; exit 2 ;;
esac
# Debian's interpreter (its python3-torch), not one a version manager puts first on PATH.
PYTHON=${PYTHON:-/usr/bin/python3}

ICEFALL_COMMIT=36e0420c7e3e849a25b3d24dbf913c424f3d23c9

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
out=$(realpath -m "${1:-$root/test/fixtures/models/zipformer-streaming}")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

. "$here/../upstream-source.sh"

recipe=egs/librispeech/ASR/zipformer
extract "${ICEFALL_GIT:-}" https://github.com/k2-fsa/icefall "$ICEFALL_COMMIT" "$work/icefall" \
  $recipe/export-onnx-streaming.py $recipe/train.py $recipe/model.py $recipe/zipformer.py $recipe/scaling.py \
  $recipe/scaling_converter.py $recipe/decoder.py $recipe/joiner.py $recipe/subsampling.py $recipe/optim.py \
  $recipe/attention_decoder.py $recipe/label_smoothing.py $recipe/encoder_interface.py \
  egs/librispeech/ASR/transducer_stateless/encoder_interface.py \
  icefall/utils.py icefall/checkpoint.py icefall/diagnostics.py icefall/dist.py icefall/env.py icefall/err.py \
  icefall/hooks.py LICENSE
# icefall's own __init__ also loads its decoding, language-model and graph modules (k2 FSAs throughout): the
# build's package holds the modules the recipe imports, each imported by name.
: > "$work/icefall/icefall/__init__.py"

mkdir -p "$work/out" "$out"
"$PYTHON" "$here/build.py" --work "$work/build" --out "$work/out" --recipe "$work/icefall/$recipe" \
  --icefall "$work/icefall" --stand-ins "$here/../stand-ins" --size "$size"

if [ "$size" = published ]; then
  package=sherpa-onnx-streaming-zipformer-parla-published-size
  sizes="the published streaming model's sizes (train.py defaults: --num-encoder-layers 2,2,3,4,3,2, --feedforward-dim 512,768,1024,1536,1024,768, --num-heads 4,4,4,8,4,4, --encoder-dim 192,256,384,512,384,256, --encoder-unmasked-dim 192,192,256,256,256,192, --query-head-dim 32, --value-head-dim 12, --pos-head-dim 4, --pos-dim 48, --decoder-dim 512, --joiner-dim 512), every weight plus N(0, 0.001) noise first so that the layers the recipe deep-copies differ as trained ones do; not a usable recognizer, for measuring speed"
  tokens="tokens.txt written by build.py (500 entries, the published vocabulary's size: <blk>, <sos/eos>, <unk>, sentencepiece-style pieces and letter pairs), not a trained BPE model"
else
  package=sherpa-onnx-streaming-zipformer-parla-test
  sizes="width 16, one layer per stack; not a usable recognizer"
  tokens="tokens.txt written by build.py (40 entries: <blk>, <sos/eos>, <unk>, sentencepiece-style pieces), not a trained BPE model"
fi
tar -C "$work/out" -cjf "$out/$package.tar.bz2" "$package"

"$PYTHON" - "$out" "$ICEFALL_COMMIT" "$package" "$sizes" "$tokens" <<'PY'
import json, sys, torch, onnx
out, icefall, package, sizes, tokens = sys.argv[1:]
json.dump({
    "built_by": "scripts/models/zipformer-streaming/build.sh",
    "weights": "random (torch.manual_seed, the recipe's own initialisation; the joiner's output layer scaled by 8, its bias raised for blank, lowered for word-continuing pieces and <unk>); " + sizes,
    "sources": [
        {"repo": "https://github.com/k2-fsa/icefall", "commit": icefall, "license": "Apache-2.0",
         "used": "egs/librispeech/ASR/zipformer: train.py (get_params, get_model, add_model_arguments), zipformer.py (Zipformer2), model.py (AsrModel), decoder.py, joiner.py, subsampling.py, scaling.py, scaling_converter.py, export-onnx-streaming.py (run unmodified: opset 13, streaming states, encoder/decoder/joiner metadata); icefall/utils.py, checkpoint.py, env.py, diagnostics.py, dist.py, err.py, hooks.py (unmodified; the package __init__ is empty)"},
    ],
    "tokens": tokens,
    "stand_ins": "scripts/models/stand-ins/icefall_imports.py (k2 SymbolTable and versions, lhotse, kaldialign, sentencepiece, pypinyin, packaging.version, torch.utils.tensorboard, onnxruntime.quantization, the recipe's asr_datamodule)",
    "toolchain": {"torch": torch.__version__, "onnx": onnx.__version__, "python": sys.version.split()[0]},
    "packages": {
        f"{package}.tar.bz2": "layout of sherpa-onnx's sherpa-onnx-streaming-zipformer-en-2023-06-26 (chunk 16, left context 128), float files only (no int8 copies), without bpe.model and test_wavs",
    },
}, open(f"{out}/provenance.json", "w"), indent=2, ensure_ascii=False)
PY
du -ab "$out"
