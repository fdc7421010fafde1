"""
Builds small Whisper packages in the layout sherpa-onnx publishes (sherpa-onnx-whisper-<name>/: <name>-encoder.onnx,
<name>-decoder.onnx, <name>-tokens.txt) from openai/whisper's own model code (whisper/model.py: Whisper,
AudioEncoder, TextDecoder; whisper/tokenizer.py; whisper/audio.py) exported by k2-fsa/sherpa-onnx's own
scripts/whisper/export-onnx.py, run unmodified (opset 17, its metadata, its tokens file). Called by build.sh.

What differs from the published models, and why:
- Dimensions: n_audio_state = n_text_state = 4 (2 heads) instead of 384; layers, contexts (1500 audio, 448 text),
  80 mel bins and the vocabulary (51,865 multilingual / 51,864 English-only, with every special token) are
  tiny's. The token embedding (n_vocab x n_state) is most of the file, hence the small width.
- Weights: torch.manual_seed random, except a planted script: every row of the (tied) token embedding is zero
  but for the tokens of one sentence, the end-of-text token and one language token, which lie on a circle in a
  plane of the embedding space; each text position's positional embedding points, 100x longer, at the token
  that should follow it. Greedy search therefore emits that sentence whatever the audio, and language detection
  (the decoder's first position, over the language tokens) picks that language. The random blocks stay in
  the path; the planted directions dominate them.
"""
import argparse
import importlib
import math
import os
import runpy
import shutil
import sys

import torch

VARIANTS = {
    # package folder: (export name, multilingual, language token detected, sentence, n_state)
    "sherpa-onnx-whisper-tiny.en": ("tiny.en", False, None, " Hello world, this is a test.", 4),
    "sherpa-onnx-whisper-tiny-it": ("tiny", True, "it", " Ho visto i bambini e poi", 4),
    "sherpa-onnx-whisper-tiny-zh": ("tiny", True, "zh", "你好。我们的语音识别服务器", 4),
    # An encoder of another width: paired with another package's decoder it makes a mismatched pair.
    "whisper-wide-encoder": ("tiny", True, "de", " Guten Tag", 6),
}


def dims_for(multilingual, n_state):
    from whisper.model import ModelDimensions
    return ModelDimensions(n_mels=80, n_audio_ctx=1500, n_audio_state=n_state, n_audio_head=2, n_audio_layer=4,
                           n_vocab=51865 if multilingual else 51864, n_text_ctx=448, n_text_state=n_state,
                           n_text_head=2, n_text_layer=4)


@torch.no_grad()
def plant(model, multilingual, language, sentence):
    import whisper.tokenizer as wt
    tok = wt.get_tokenizer(multilingual, num_languages=99)
    text = tok.encode(sentence)
    assert tok.encoding.decode_bytes(text).decode("utf-8") == sentence, sentence
    # What sherpa-onnx feeds before the text: [sot, language, transcribe, notimestamps] or [sot, notimestamps].
    first = 4 if multilingual else 2
    follow = {first - 1 + k: t for k, t in enumerate(text)}
    follow[first - 1 + len(text)] = tok.eot
    if multilingual:
        follow[0] = tok.to_language_token(language)
    targets = sorted(set(follow.values()) | {tok.eot})
    n_state = model.dims.n_text_state
    # Two orthonormal zero-mean directions: LayerNorm keeps them.
    u = torch.zeros(n_state); u[0], u[1] = 1, -1
    v = torch.zeros(n_state); v[0], v[1], v[2] = 1, 1, -2
    u, v = u / u.norm(), v / v.norm()
    angle = {t: 2 * math.pi * i / len(targets) for i, t in enumerate(targets)}
    at = lambda t: math.cos(angle[t]) * u + math.sin(angle[t]) * v
    emb = model.decoder.token_embedding.weight
    emb.zero_()
    for t in targets:
        emb[t] = 10 * at(t)
    pos = model.decoder.positional_embedding
    for p in range(pos.shape[0]):
        pos[p] = 1000 * at(follow.get(p, tok.eot))
    return text


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--work", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--export-script", required=True)
    # One package per process: export-onnx.py sets torch's thread counts, which torch allows once per process.
    ap.add_argument("--variant", required=True, choices=sorted(VARIANTS))
    args = ap.parse_args()
    import whisper
    from whisper.model import Whisper

    for folder in [args.variant]:
        name, multilingual, language, sentence, n_state = VARIANTS[folder]
        torch.manual_seed(25)
        model = Whisper(dims_for(multilingual, n_state))
        tokens = plant(model, multilingual, language, sentence)
        print(f"{folder}: {sentence!r} -> {tokens}", flush=True)
        whisper.load_model = lambda _name, m=model: m
        work = os.path.join(args.work, folder)
        os.makedirs(work, exist_ok=True)
        os.chdir(work)
        sys.argv = ["export-onnx.py", "--model", name]
        runpy.run_path(args.export_script, run_name="__main__")
        dest = os.path.join(args.out, folder)
        os.makedirs(dest, exist_ok=True)
        files = [f"{name}-encoder.onnx"] if folder == "whisper-wide-encoder" else \
            [f"{name}-encoder.onnx", f"{name}-decoder.onnx", f"{name}-tokens.txt"]
        for f in files:
            shutil.copy(f, os.path.join(dest, f))


if __name__ == "__main__":
    main()
