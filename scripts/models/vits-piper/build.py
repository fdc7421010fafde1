"""
Builds small sherpa-onnx `vits-piper-*` packages (the Piper voices sherpa-onnx republishes: `<voice>.onnx` with
sherpa metadata, `<voice>.onnx.json`, `tokens.txt`; `espeak-ng-data/` left out, Parla supplies it) from the
upstream projects' own code. Called by build.sh, which fetches the sources at pinned commits.

- The voice: rhasspy/piper's piper_train VitsModel/SynthesizerTrn (random weights), saved as the checkpoint
  its trainer writes (hyper_parameters + state_dict) and exported by piper_train/export_onnx.py, run
  unmodified (opset 15; inputs input, input_lengths, scales[, sid]; output output).
- The sherpa-onnx layer: sherpa-onnx's scripts/piper/add_meta_data.py, run unmodified next to the voice and its
  `.onnx.json` (it writes tokens.txt from phoneme_id_map and the metadata model_type vits, comment piper, ...).
- The `.onnx.json`: modelled on a published `en_US-*-low` config (audio, espeak, language, inference,
  phoneme_type, phoneme_map, phoneme_id_map of Piper's symbol table shape, num_symbols 256, speakers).

Dimensions (a published "low" voice's in brackets): hidden and inter channels 16 [96], filter 32 [384], 1 text
encoder layer [6], decoder upsample_initial_channel 16 [256]; the stochastic duration predictor's 192 filter
channels, a literal in piper_train/vits/models.py, become the hidden channel count in the work copy. Operators,
inputs and outputs are those of the published voices. Two packages: one speaker, and two speakers (`sid`,
speaker embedding 16 wide [512]).
"""
import argparse
import json
import os
import shutil
import subprocess
import sys

import torch

PHONEMES = ["_", "^", "$", " ", "!", "'", "(", ")", ",", "-", ".", ":", ";", "?"] + list(
    "abcdefhijklmnopqrstuvwxyzæçðøħŋœǀǁǂǃɐɑɒɓɔɕɖɗɘəɚɛɜɞɟɠɡɢɣɤɥɦɧɨɪɫɬɭɮɯɰɱɲɳɴɵɶɸɹɺɻɽɾʀʁʂʃʄʈʉʊʋʌʍʎʏʐʑʒʔʕʘʙʛʜʝʟʡʢʲˈˌːˑ˞βθχᵻⱱ")

HPARAMS = {
    "resblock": "2", "resblock_kernel_sizes": [3, 5, 7], "resblock_dilation_sizes": [[1, 2], [2, 6], [3, 12]],
    "upsample_rates": [8, 8, 4], "upsample_initial_channel": 16, "upsample_kernel_sizes": [16, 16, 8],
    "sample_rate": 16000, "inter_channels": 16, "hidden_channels": 16, "filter_channels": 32, "n_heads": 2,
    "n_layers": 1, "gin_channels": 0,
}


def onnx_json(speakers):
    return {
        "audio": {"sample_rate": 16000, "quality": "low"},
        "espeak": {"voice": "en-us"},
        "language": {"code": "en_US", "family": "en", "region": "US", "name_native": "English",
                     "name_english": "English", "country_english": "United States"},
        "inference": {"noise_scale": 0.667, "length_scale": 1, "noise_w": 0.8},
        "phoneme_type": "espeak",
        "phoneme_map": {},
        "phoneme_id_map": {p: [i] for i, p in enumerate(PHONEMES)},
        "num_symbols": 256,
        "num_speakers": max(1, len(speakers)),
        "speaker_id_map": {s: i for i, s in enumerate(speakers)},
        "piper_version": "1.0.0",
        "dataset": "parla-test",
    }


def build(work, out, name, speakers, seed):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([os.path.join(os.environ["PIPER_SRC"], "src", "python"), os.environ["STAND_INS"]]))
    voice = f"en_US-{name}-low"
    w = os.path.join(work, voice)
    os.makedirs(w)
    # The checkpoint piper_train's trainer writes: the module's hyper-parameters and its state dict.
    make = f"""
import torch
from piper_train.vits.lightning import VitsModel
torch.manual_seed({seed})
model = VitsModel(num_symbols=256, num_speakers={max(1, len(speakers))}, **{dict(HPARAMS, gin_channels=16 if speakers else 0)!r})
torch.save({{"hyper_parameters": dict(model.hparams), "state_dict": model.state_dict()}}, "model.ckpt")
"""
    subprocess.run([sys.executable, "-c", make], cwd=w, env=env, check=True)
    subprocess.run([sys.executable, "-m", "piper_train.export_onnx", "model.ckpt", f"{voice}.onnx"], cwd=w, env=env, check=True)
    with open(os.path.join(w, f"{voice}.onnx.json"), "w", encoding="utf-8") as f:
        json.dump(onnx_json(speakers), f, ensure_ascii=False, indent=2)
    subprocess.run([sys.executable, os.path.join(os.environ["SHERPA_SCRIPTS"], "add_meta_data.py"), "--name", name, "--kind", "low", "--lang", "en_US"],
                   cwd=w, env=env, check=True, stdout=subprocess.DEVNULL)
    dest = os.path.join(out, f"vits-piper-{voice}")
    os.makedirs(dest)
    for f in [f"{voice}.onnx", f"{voice}.onnx.json", "tokens.txt"]:
        shutil.copy(os.path.join(w, f), dest)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--work", required=True)
    p.add_argument("--out", required=True)
    a = p.parse_args()
    models = os.path.join(os.environ["PIPER_SRC"], "src", "python", "piper_train", "vits", "models.py")
    src = open(models, encoding="utf-8").read()
    assert src.count("hidden_channels, 192, 3, 0.5, 4") == 1, "unexpected models.py"
    open(models, "w", encoding="utf-8").write(src.replace("hidden_channels, 192, 3, 0.5, 4", "hidden_channels, hidden_channels, 3, 0.5, 4"))
    build(a.work, a.out, "parla", [], 1)
    build(a.work, a.out, "parla2", ["alice", "bob"], 2)


if __name__ == "__main__":
    main()
