"""
Builds a small sherpa-onnx `vits-ljs` package (the lexicon-based VITS layout: vits-ljs.onnx with sherpa
metadata, tokens.txt, lexicon.txt) from the upstream projects' own code. Called by build.sh, which fetches the
sources at pinned commits.

- The voice: jaywalnut310/vits's SynthesizerTrn (random weights) with configs/ljs_base.json's settings at
  smaller sizes, saved as its trainer's checkpoint (model, iteration, learning_rate, optimizer) and exported by
  sherpa-onnx's scripts/vits/export-onnx-ljs.py, run unmodified (opset 13; inputs x, x_length, noise_scale,
  length_scale, noise_scale_w; output y; metadata model_type vits, comment ljspeech, add_blank, punctuation,
  ...; tokens-ljs.txt). Its int8 copy is not made (onnxruntime's quantizer; stand-in).
- lexicon.txt: a few English words in the published vits-ljs lexicon's format (word, then one token per IPA
  symbol of its pronunciation).

Dimensions (ljs_base.json's in brackets): hidden and inter channels 16 [192], filter 32 [768], 1 text encoder
layer [6], upsample_initial_channel 16 [512]; the stochastic duration predictor's literal 192 channels in
models.py become the hidden channel count in the work copy.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys

LEXICON = {
    "hello": "həlˈoʊ", "world": "wˈɜːld", "this": "ðˈɪs", "is": "ɪz", "a": "ə", "test": "tˈɛst",
    "and": "ænd", "more": "mˈoːɹ", "words": "wˈɜːdz", "here": "hˈiəɹ", "longer": "lˈɔŋɡɚ", "of": "ʌv",
    "the": "ðə", "voice": "vˈɔɪs",
}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--work", required=True)
    p.add_argument("--out", required=True)
    a = p.parse_args()
    vits = os.environ["VITS_SRC"]
    models = os.path.join(vits, "models.py")
    src = open(models, encoding="utf-8").read()
    assert src.count("StochasticDurationPredictor(hidden_channels, 192,") == 1, "unexpected models.py"
    open(models, "w", encoding="utf-8").write(src.replace("StochasticDurationPredictor(hidden_channels, 192,", "StochasticDurationPredictor(hidden_channels, hidden_channels,"))

    config = json.load(open(os.path.join(vits, "configs", "ljs_base.json"), encoding="utf-8"))
    config["model"].update({"inter_channels": 16, "hidden_channels": 16, "filter_channels": 32, "n_layers": 1, "upsample_initial_channel": 16})
    os.makedirs(a.work)
    json.dump(config, open(os.path.join(a.work, "ljs_small.json"), "w"), indent=2)

    env = dict(os.environ, PYTHONPATH=os.pathsep.join([vits, os.environ["STAND_INS"]]))
    prelude = "import vits_imports, runpy, sys; "
    make = prelude + """
import torch, utils
from models import SynthesizerTrn
from text.symbols import symbols
hps = utils.get_hparams_from_file("ljs_small.json")
torch.manual_seed(1)
net_g = SynthesizerTrn(len(symbols), hps.data.filter_length // 2 + 1, hps.train.segment_size // hps.data.hop_length, **hps.model)
torch.save({"model": net_g.state_dict(), "iteration": 0, "learning_rate": 2e-4, "optimizer": None}, "G_0.pth")
"""
    subprocess.run([sys.executable, "-c", make], cwd=a.work, env=env, check=True)
    script = os.path.join(os.environ["SHERPA_SCRIPTS"], "export-onnx-ljs.py")
    run = prelude + f"sys.argv = {[script, '--config', 'ljs_small.json', '--checkpoint', 'G_0.pth']!r}; runpy.run_path({script!r}, run_name='__main__')"
    subprocess.run([sys.executable, "-c", run], cwd=a.work, env=env, check=True, stdout=subprocess.DEVNULL)

    dest = os.path.join(a.out, "vits-ljs")
    os.makedirs(dest)
    shutil.copy(os.path.join(a.work, "vits-ljs.onnx"), dest)
    shutil.copy(os.path.join(a.work, "tokens-ljs.txt"), os.path.join(dest, "tokens.txt"))
    with open(os.path.join(dest, "lexicon.txt"), "w", encoding="utf-8") as f:
        for word, phones in LEXICON.items():
            f.write(f"{word} {' '.join(phones)}\n")


if __name__ == "__main__":
    main()
