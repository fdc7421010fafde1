"""
Builds a small streaming Zipformer transducer in the layout sherpa-onnx publishes its online models
(sherpa-onnx-streaming-zipformer-*/: encoder-epoch-99-avg-1-chunk-16-left-128.onnx, decoder-…, joiner-…,
tokens.txt) from k2-fsa/icefall's own recipe (egs/librispeech/ASR/zipformer: train.py's get_model, Zipformer2,
Conv2dSubsampling, Decoder, Joiner, AsrModel) exported by the recipe's own export-onnx-streaming.py, run
unmodified (opset 13, the 6 streaming states per layer plus embed_states and processed_lens, its metadata).
Called by build.sh.

What differs from the published models, and why:
- Dimensions: the six encoder stacks, their downsampling factors (1,2,4,8,4,2), chunk 16 and left context 128
  are the published streaming model's; each stack has 1 layer of width 16 (2 heads of query width 16, value
  width 8; feed-forward 32; positional width 8) instead of 2-4 layers of 192-512, and decoder and joiner are 16
  wide instead of 512, so the three files stay small. The convolutional front end (Conv2dSubsampling with its ConvNeXt, most of the
  encoder's weights here) is the recipe's, unchanged but for its output width.
- Tokens: a 40-entry list written here (<blk>, <sos/eos>, <unk> and sentencepiece-style pieces with ▁), not a
  trained BPE model: the export only reads tokens.txt, and the runtime only maps ids to pieces.
- Weights: torch.manual_seed random (the recipe's own initialisation), with the joiner's output layer adjusted
  (JOINER_GAIN, BLANK_BOOST, SUFFIX_DROP below; <unk> never chosen) so that the model emits a token on some
  frames, not on all, and starts words: a random transcript, but one that grows chunk by chunk, which is what
  the tests compare.

--size published keeps the recipe, the export, the layout and the joiner adjustments but takes the published
model's dimensions (PUBLISHED_ARGS) and a 500-entry token list, and adds a little noise to every weight (see
build_checkpoint): a random model whose cost per second of audio is the published one's, for benchmarks only.
"""
import argparse
import os
import runpy
import shutil
import sys

import torch

PACKAGE = "sherpa-onnx-streaming-zipformer-parla-test"
PUBLISHED_PACKAGE = "sherpa-onnx-streaming-zipformer-parla-published-size"
SUFFIX = "epoch-99-avg-1-chunk-16-left-128"
# The joiner's output layer, adjusted so that the random model's transcript looks like one: its weights scaled
# up (the audio then moves the choice), blank's bias raised (with random weights every frame would emit a
# token) and the bias of word-continuing pieces lowered (words start, partials hold several). Found by trying
# a few values on librivox-0870.wav: about 30 tokens in 7 s, in a dozen words.
JOINER_GAIN = 8.0
BLANK_BOOST = 4.0
SUFFIX_DROP = 3.0
PIECES = ["▁THE", "▁A", "▁AND", "▁TO", "▁OF", "▁IN", "▁I", "▁HE", "▁IT", "▁WAS", "▁GO", "▁FOR", "▁TEN",
          "▁ME", "▁ON", "▁WE", "S", "ED", "ING", "ER", "E", "T", "D", "Y", "N", "R", "L", "▁S", "▁C", "▁B",
          "▁W", "▁M", "▁P", "AR", "OR", "AL", "▁THIS"]
# The recipe's model arguments (train.py add_model_arguments), small widths; the rest as published.
MODEL_ARGS = [
    "--num-encoder-layers", "1,1,1,1,1,1",
    "--downsampling-factor", "1,2,4,8,4,2",
    "--feedforward-dim", "32,32,32,32,32,32",
    "--num-heads", "2,2,2,2,2,2",
    "--encoder-dim", "16,16,16,16,16,16",
    "--encoder-unmasked-dim", "16,16,16,16,16,16",
    "--query-head-dim", "16",
    "--value-head-dim", "8",
    "--pos-head-dim", "4",
    "--pos-dim", "8",
    "--cnn-module-kernel", "31,31,15,15,15,31",
    "--decoder-dim", "16",
    "--joiner-dim", "16",
    "--causal", "True",
    "--chunk-size", "16",
    "--left-context-frames", "128",
]
# --size published: the sizes of the model behind sherpa-onnx-streaming-zipformer-en-2023-06-26
# (icefall-asr-librispeech-streaming-zipformer-2023-05-17, 66.1 M parameters): train.py's defaults, which are
# also the arguments export-onnx-streaming.py's own docstring exports that model with, and its 500-entry
# BPE vocabulary. Random weights all the same: for measuring speed, not words.
PUBLISHED_ARGS = [
    "--num-encoder-layers", "2,2,3,4,3,2",
    "--downsampling-factor", "1,2,4,8,4,2",
    "--feedforward-dim", "512,768,1024,1536,1024,768",
    "--num-heads", "4,4,4,8,4,4",
    "--encoder-dim", "192,256,384,512,384,256",
    "--encoder-unmasked-dim", "192,192,256,256,256,192",
    "--query-head-dim", "32",
    "--value-head-dim", "12",
    "--pos-head-dim", "4",
    "--pos-dim", "48",
    "--cnn-module-kernel", "31,31,15,15,15,31",
    "--decoder-dim", "512",
    "--joiner-dim", "512",
    "--causal", "True",
    "--chunk-size", "16",
    "--left-context-frames", "128",
]
PUBLISHED_VOCAB = 500
WEIGHT_NOISE = 1e-3


def published_pieces():
    """PIECES, then letter pairs with and without ▁, up to the published 500 entries with the 3 specials."""
    letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    pieces = list(PIECES)
    for a in letters:
        for b in letters:
            for piece in (f"▁{a}{b}", f"{a}{b}"):
                if len(pieces) < PUBLISHED_VOCAB - 3 and piece not in pieces:
                    pieces.append(piece)
    return pieces


def write_tokens(path, pieces):
    with open(path, "w", encoding="utf-8") as f:
        for i, sym in enumerate(["<blk>", "<sos/eos>", "<unk>"] + pieces):
            f.write(f"{sym} {i}\n")


def build_checkpoint(tokens, exp_dir, model_args, pieces, distinct):
    """A random model from the recipe's own train.get_model, saved as the checkpoint the export loads."""
    import train
    import k2
    from icefall.utils import num_tokens

    parser = argparse.ArgumentParser()
    train.add_model_arguments(parser)
    args = parser.parse_args(model_args)
    params = train.get_params()
    params.update(vars(args))
    table = k2.SymbolTable.from_file(tokens)
    params.blank_id = table["<blk>"]
    params.vocab_size = num_tokens(table) + 1
    params.context_size = 2
    torch.manual_seed(20261129)
    model = train.get_model(params)
    with torch.no_grad():
        if distinct:
            # Zipformer2Encoder deep-copies one layer per stack, so untrained layers are identical and the
            # ONNX exporter stores each stack's weights once (an 86 MB encoder instead of the published 262 MB).
            # A trained model's weights all differ: a little noise on every weight gives the real file size and
            # memory traffic without changing the initialisation's scale.
            for p in model.parameters():
                p.add_(torch.randn_like(p) * WEIGHT_NOISE)
        model.joiner.output_linear.weight *= JOINER_GAIN
        bias = model.joiner.output_linear.bias
        bias[params.blank_id] += BLANK_BOOST
        for piece in pieces:
            if not piece.startswith("▁"):
                bias[table[piece]] -= SUFFIX_DROP
        # sherpa-onnx leaves <unk> out of a result's tokens but not out of its timestamps; trained models
        # practically never emit it, so this one does not either.
        bias[table["<unk>"]] -= 10.0
    os.makedirs(exp_dir, exist_ok=True)
    torch.save({"model": model.state_dict()}, os.path.join(exp_dir, "epoch-99.pt"))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--work", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--recipe", required=True, help="icefall's egs/librispeech/ASR/zipformer folder")
    ap.add_argument("--icefall", required=True, help="the folder holding the icefall package")
    ap.add_argument("--stand-ins", required=True)
    ap.add_argument("--size", choices=("test", "published"), default="test",
                    help="test: the small fixture; published: the published streaming model's sizes")
    a = ap.parse_args()
    published = a.size == "published"
    model_args = PUBLISHED_ARGS if published else MODEL_ARGS
    pieces = published_pieces() if published else PIECES

    sys.path[:0] = [a.stand_ins, a.recipe, a.icefall]
    import icefall_imports  # noqa: F401  (registers the stand-ins before the recipe is imported)

    exp_dir = os.path.join(a.work, "exp")
    os.makedirs(a.work, exist_ok=True)
    tokens = os.path.join(a.work, "tokens.txt")
    write_tokens(tokens, pieces)
    build_checkpoint(tokens, exp_dir, model_args, pieces, distinct=published)

    script = os.path.join(a.recipe, "export-onnx-streaming.py")
    sys.argv = [script, "--tokens", tokens, "--exp-dir", exp_dir, "--epoch", "99", "--avg", "1",
                "--use-averaged-model", "0", "--enable-int8-quantization", "0", *model_args]
    runpy.run_path(script, run_name="__main__")

    package = os.path.join(a.out, PUBLISHED_PACKAGE if published else PACKAGE)
    os.makedirs(package, exist_ok=True)
    for part in ("encoder", "decoder", "joiner"):
        shutil.copy(os.path.join(exp_dir, f"{part}-{SUFFIX}.onnx"), package)
    shutil.copy(tokens, package)


if __name__ == "__main__":
    main()
