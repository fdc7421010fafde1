"""
Builds Piper voices with rhasspy/piper's own training code: piper_train.vits.lightning.VitsModel (which builds
vits/models.py SynthesizerTrn from its hyper-parameters) with random weights, saved as a checkpoint and exported
by piper_train/export_onnx.py run unmodified (opset 15, inputs input/input_lengths/scales[/sid], output output).
Each voice gets an `.onnx.json` modelled on a published `en_US-*-medium` config: piper's own eSpeak phoneme map
(the `phoneme_id_map` of its etc/test_voice.onnx.json), `num_symbols` 256, `espeak.voice`, the `language` block,
the `inference` block and `audio.sample_rate`. Called by build.sh.

Sizes:
- `--medium`: piper's "medium" quality, i.e. VitsModel's defaults (hidden/inter 192, filter 768, 6 layers,
  upsample 256 → 8·8·4), what published medium voices are (~63 MB).
- default (test fixtures): the same graph with reduced channel counts (hidden/inter 16, filter 32, upsample 32,
  speaker embedding 16). The duration predictor's 192 filter channels, a literal in SynthesizerTrn, are kept.
"""
import argparse
import copy
import json
import os
import runpy
import shutil
import sys

import onnx
import torch

SMALL = dict(hidden_channels=16, inter_channels=16, filter_channels=32, upsample_initial_channel=32, n_layers=2)
MEDIUM = {}


def config(phoneme_id_map, speakers, sample_rate=22050, quality="medium"):
    """A config laid out as published en_US-*-medium.onnx.json files are."""
    return {
        "dataset": "parla-test",
        "audio": {"sample_rate": sample_rate, "quality": quality},
        "espeak": {"voice": "en-us"},
        "language": {"code": "en_US", "family": "en", "region": "US", "name_native": "English",
                     "name_english": "English", "country_english": "United States"},
        "inference": {"noise_scale": 0.667, "length_scale": 1, "noise_w": 0.8},
        "phoneme_type": "espeak",
        "phoneme_map": {},
        "phoneme_id_map": phoneme_id_map,
        "num_symbols": 256,
        "num_speakers": max(1, len(speakers)),
        "speaker_id_map": {name: i for i, name in enumerate(speakers)} if len(speakers) > 1 else {},
        "piper_version": "1.0.0",
    }


def build(work, onnx_path, dims, num_speakers, seed):
    """VitsModel with random weights → checkpoint → piper_train.export_onnx (unmodified) → onnx_path."""
    from piper_train.vits.lightning import VitsModel
    torch.manual_seed(seed)
    extra = {} if num_speakers == 1 or not dims else {"gin_channels": 16}
    model = VitsModel(num_symbols=256, num_speakers=num_speakers, sample_rate=22050, dataset=None, **dims, **extra)
    checkpoint = os.path.join(work, "voice.ckpt")
    torch.save({"hyper_parameters": dict(model.hparams), "state_dict": model.state_dict()}, checkpoint)
    del model
    argv = sys.argv
    sys.argv = ["export_onnx.py", checkpoint, onnx_path]
    try:
        runpy.run_module("piper_train.export_onnx", run_name="__main__")
    finally:
        sys.argv = argv
        os.remove(checkpoint)


def external(src, folder, name):
    """The same model saved the way exporters write large models: name.onnx + name.onnx.data."""
    model = onnx.load(src)
    os.makedirs(folder, exist_ok=True)
    onnx.save_model(model, os.path.join(folder, f"{name}.onnx"), save_as_external_data=True,
                    all_tensors_to_one_file=True, location=f"{name}.onnx.data", size_threshold=1024)


def write_json(path, value):
    with open(path, "w", encoding="utf-8") as f:
        json.dump(value, f, ensure_ascii=False, indent=4)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--work", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--medium", action="store_true")
    a = p.parse_args()
    sys.path[:0] = [os.environ["PIPER_SRC"], os.environ["STAND_INS"]]
    with open(os.environ["PIPER_TEST_VOICE_JSON"], encoding="utf-8") as f:
        phonemes = json.load(f)["phoneme_id_map"]
    os.makedirs(a.work, exist_ok=True)

    if a.medium:
        name = "en_US-parla_test-medium"
        folder = os.path.join(a.out, name)
        os.makedirs(folder, exist_ok=True)
        build(a.work, os.path.join(folder, f"{name}.onnx"), MEDIUM, 1, 1)
        write_json(os.path.join(folder, f"{name}.onnx.json"), config(phonemes, []))
        return

    single = "en_US-parla_test-medium"
    folder = os.path.join(a.out, single)
    os.makedirs(folder, exist_ok=True)
    build(a.work, os.path.join(folder, f"{single}.onnx"), SMALL, 1, 1)
    write_json(os.path.join(folder, f"{single}.onnx.json"), config(phonemes, []))

    multi = "en_US-parla_test_2spk-medium"
    folder = os.path.join(a.out, multi)
    os.makedirs(folder, exist_ok=True)
    build(a.work, os.path.join(folder, f"{multi}.onnx"), SMALL, 2, 2)
    write_json(os.path.join(folder, f"{multi}.onnx.json"), config(phonemes, ["alba", "northern"]))

    ext = "en_US-parla_test_external-medium"
    external(os.path.join(a.out, single, f"{single}.onnx"), os.path.join(a.out, ext), ext)
    write_json(os.path.join(a.out, ext, f"{ext}.onnx.json"), config(phonemes, []))


if __name__ == "__main__":
    main()
