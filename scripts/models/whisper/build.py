"""
Builds small Whisper packages in the layout sherpa-onnx publishes (sherpa-onnx-whisper-<name>/: <name>-encoder.onnx,
<name>-decoder.onnx, <name>-tokens.txt) from openai/whisper's own model code (whisper/model.py: Whisper,
AudioEncoder, TextDecoder; whisper/tokenizer.py; whisper/audio.py) exported by k2-fsa/sherpa-onnx's own
scripts/whisper/export-onnx.py, run unmodified (opset 17, its metadata, its tokens file). Called by build.sh.

What differs from the published models, and why:
- Dimensions: n_audio_state = n_text_state = 4 (2 heads) instead of 384; layers, contexts (1500 audio, 448 text),
  80 mel bins and the vocabulary (51,865 multilingual / 51,864 English-only, with every special token) are
  tiny's. The token embedding (n_vocab x n_state) is most of the file, hence the small width.
  `--dims tiny|base|tiny.en|base.en` instead builds one package at the published ModelDimensions (the size and
  compute of the published model; for benchmarks, never committed).
- Weights: torch.manual_seed random, except a planted script: every row of the (tied) token embedding is zero
  but for the tokens of one sentence, the end-of-text token and one language token, which lie on a circle in a
  plane of the embedding space (at the published widths, on orthonormal directions of their own: a circle cannot
  keep a hundred tokens apart); each text position's positional embedding points, 100x longer, at the token
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

# openai/whisper's published ModelDimensions (n_audio_* = n_text_*): (n_state, n_head, n_layer).
PUBLISHED = {"tiny": (384, 6, 4), "base": (512, 8, 6)}

# What the published-size packages say: about 100 tokens, what a real speaker fills a 30 s window with (~3.3
# tokens/s), then end-of-text. The runtime stops a window at 6 tokens per second of audio (sherpa-onnx's greedy
# search), so a piece shorter than ~17 s emits that many instead. Never ending would make every piece a worst case.
LONG_SENTENCE = (" The morning train left the station a little after seven, carrying commuters, students and a few"
                 " tired travellers toward the city. Outside the windows, fields of wheat gave way to warehouses,"
                 " bridges and long rows of brick houses. A conductor walked slowly through each carriage, checking"
                 " tickets and answering questions about connections, delays and the weather on the coast. Near the"
                 " front, two friends argued quietly about whether the new library would open before the summer.")


def dims_for(multilingual, n_state, n_head=2, n_layer=4):
    from whisper.model import ModelDimensions
    return ModelDimensions(n_mels=80, n_audio_ctx=1500, n_audio_state=n_state, n_audio_head=n_head,
                           n_audio_layer=n_layer, n_vocab=51865 if multilingual else 51864, n_text_ctx=448,
                           n_text_state=n_state, n_text_head=n_head, n_text_layer=n_layer)


def directions(targets, n_state):
    """One zero-mean unit direction per target token (LayerNorm keeps zero-mean directions)."""
    if n_state < 64:
        # The small packages: points on a circle in one plane (as the committed fixtures were built).
        u = torch.zeros(n_state); u[0], u[1] = 1, -1
        v = torch.zeros(n_state); v[0], v[1], v[2] = 1, 1, -2
        u, v = u / u.norm(), v / v.norm()
        angle = {t: 2 * math.pi * i / len(targets) for i, t in enumerate(targets)}
        return {t: math.cos(angle[t]) * u + math.sin(angle[t]) * v for t in targets}
    # Wide enough for orthonormal directions: each token's logit stands alone, whatever the others do.
    m = torch.randn(n_state, len(targets), generator=torch.Generator().manual_seed(25))
    q, _ = torch.linalg.qr(m - m.mean(0, keepdim=True))
    return {t: q[:, i].clone() for i, t in enumerate(targets)}


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
    at = directions(targets, model.dims.n_text_state).__getitem__
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
    which = ap.add_mutually_exclusive_group(required=True)
    which.add_argument("--variant", choices=sorted(VARIANTS))
    which.add_argument("--dims", choices=[f"{n}{en}" for n in PUBLISHED for en in ("", ".en")])
    args = ap.parse_args()
    import whisper
    from whisper.model import Whisper

    if args.dims:
        folder = f"sherpa-onnx-whisper-{args.dims}"
        multilingual = not args.dims.endswith(".en")
        n_state, n_head, n_layer = PUBLISHED[args.dims.removesuffix(".en")]
        name, language, sentence = args.dims, "en" if multilingual else None, LONG_SENTENCE
    else:
        folder = args.variant
        name, multilingual, language, sentence, n_state = VARIANTS[folder]
        n_head, n_layer = 2, 4
    torch.manual_seed(25)
    model = Whisper(dims_for(multilingual, n_state, n_head, n_layer))
    tokens = plant(model, multilingual, language, sentence)
    print(f"{folder}: {sentence!r} -> {len(tokens)} tokens {tokens}", flush=True)
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
