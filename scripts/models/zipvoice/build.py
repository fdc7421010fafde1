"""
Builds a small ZipVoice package in the layout sherpa-onnx publishes (sherpa-onnx-zipvoice-distill-zh-en-emilia:
encoder.onnx, decoder.onnx, tokens.txt, lexicon.txt; plus vocos_24khz.onnx, which operators download into the
folder) from the upstream projects' own code. Called by build.sh, which fetches the sources at pinned commits.

- encoder.onnx / decoder.onnx: k2-fsa/ZipVoice's ZipVoiceDistill (random weights) exported by ZipVoice's own
  zipvoice/bin/onnx_export.py, run unmodified (text encoder and flow-matching decoder, opset 13, its metadata).
  Its int8 copies are not made: quantize_dynamic comes from onnxruntime, which Debian lacks (stand-in), so the
  float models are packaged, under the names of sherpa-onnx's float release.
- vocos_24khz.onnx: gemelo-ai/vocos's VocosBackbone and ISTFTHead (random weights). The published file stops
  before the inverse STFT (sherpa-onnx does it, vocos-vocoder.cc) and returns the head's magnitude and the
  cosine and sine of its phase; the wrapper below computes exactly the ISTFTHead.forward lines before its
  istft call. Metadata: the keys of sherpa-onnx's scripts/vocos/add_meta_data.py with the 24 kHz model's values.
- tokens.txt: ZipVoice's format (token, tab, id; `_` the pad) with the space, punctuation and the IPA letters
  eSpeak NG writes for English, and the pinyin initials/finals of lexicon.txt's characters.
- lexicon.txt: a few Chinese characters in the format of sherpa-onnx's scripts/zipvoice/zh-en/generate_lexicon.py
  (initial + "0", final with tone), and English words are left to eSpeak NG as in the published package.

Dimensions (the published model's in brackets): decoder dim 32 [512], feed-forward 64 [1536], 1 layer per stack
[2,2,4,4,4], the same five stacks with downsampling 1,2,4,2,1 and kernels 31,15,7,15,31; text encoder dim 16
[192], 1 layer [4]; Vocos dim 16 [512], 1 ConvNeXt block [8]. feat_dim 100, n_fft 1024, hop 256, 24 kHz as published.
"""
import argparse
import json
import os
import runpy
import shutil
import sys

import torch

IPA = list(" !',-.?") + list("abdefhijklmnoprstuvwxzæçðŋɐɑɒɔəɚɛɜɡɪɫɬɹɾʃʊʌʒʔʲθᵻˈˌː")
LEXICON_ZH = {"你": "n0 i3", "好": "h0 ao3", "世": "sh0 i4", "界": "j0 ie4", "我": "w0 o3", "们": "m0 en5"}

MODEL = {
    "fm_decoder_downsampling_factor": [1, 2, 4, 2, 1],
    "fm_decoder_num_layers": [1, 1, 1, 1, 1],
    "fm_decoder_cnn_module_kernel": [31, 15, 7, 15, 31],
    "fm_decoder_feedforward_dim": 64,
    "fm_decoder_num_heads": 2,
    "fm_decoder_dim": 32,
    "text_encoder_num_layers": 1,
    "text_encoder_feedforward_dim": 32,
    "text_encoder_cnn_module_kernel": 9,
    "text_encoder_num_heads": 2,
    "text_encoder_dim": 16,
    "time_embed_dim": 16,
    "text_embed_dim": 16,
    "query_head_dim": 8,
    "value_head_dim": 4,
    "pos_head_dim": 4,
    "pos_dim": 16,
    "feat_dim": 100,
}
# The feature extraction of ZipVoice's published model.json (24 kHz Vocos mel).
FEATURE = {"type": "vocos", "sampling_rate": 24000, "num_mels": 100}

VOCOS_META = {
    "model_type": "vocos", "model_filename": "vocos_24khz.onnx", "sample_rate": 24000, "version": 1,
    "model_author": "charactr", "maintainer": "k2-fsa", "n_fft": 1024, "hop_length": 256, "win_length": 1024,
    "window_type": "hann", "center": 1, "pad_mode": "reflect", "normalized": 0,
    "url1": "https://huggingface.co/charactr/vocos-mel-24khz", "url2": "https://github.com/gemelo-ai/vocos",
}


def tokens():
    syllables = sorted({p for v in LEXICON_ZH.values() for p in v.split()})
    return ["_"] + IPA + syllables


def export_zipvoice(work, out):
    model_dir = os.path.join(work, "model")
    os.makedirs(model_dir)
    with open(os.path.join(model_dir, "tokens.txt"), "w", encoding="utf-8") as f:
        for i, t in enumerate(tokens()):
            f.write(f"{t}\t{i}\n")
    json.dump({"model": MODEL, "feature": FEATURE}, open(os.path.join(model_dir, "model.json"), "w"), indent=2)

    from zipvoice.models.zipvoice_distill import ZipVoiceDistill
    torch.manual_seed(1)
    model = ZipVoiceDistill(**MODEL, vocab_size=len(tokens()), pad_id=0)
    torch.save({"model": model.state_dict()}, os.path.join(model_dir, "model.pt"))

    onnx_dir = os.path.join(work, "onnx")
    sys.argv = ["onnx_export.py", "--model-name", "zipvoice_distill", "--model-dir", model_dir,
                "--checkpoint-name", "model.pt", "--onnx-model-dir", onnx_dir]
    runpy.run_path(os.path.join(os.environ["ZIPVOICE_SRC"], "zipvoice", "bin", "onnx_export.py"), run_name="__main__")
    shutil.copy(os.path.join(onnx_dir, "text_encoder.onnx"), os.path.join(out, "encoder.onnx"))
    shutil.copy(os.path.join(onnx_dir, "fm_decoder.onnx"), os.path.join(out, "decoder.onnx"))
    shutil.copy(os.path.join(model_dir, "tokens.txt"), os.path.join(out, "tokens.txt"))
    with open(os.path.join(out, "lexicon.txt"), "w", encoding="utf-8") as f:
        for word, phones in LEXICON_ZH.items():
            f.write(f"{word} {phones}\n")


class VocosForSherpa(torch.nn.Module):
    """Vocos up to the inverse STFT, as sherpa-onnx's vocos_24khz.onnx: (mels) -> (mag, x, y)."""

    def __init__(self, backbone, head):
        super().__init__()
        self.backbone = backbone
        self.head = head

    def forward(self, mels):
        x = self.head.out(self.backbone(mels)).transpose(1, 2)
        mag, p = x.chunk(2, dim=1)
        mag = torch.clip(torch.exp(mag), max=1e2)
        return mag, torch.cos(p), torch.sin(p)


def export_vocos(out):
    import onnx
    from vocos.heads import ISTFTHead
    from vocos.models import VocosBackbone
    torch.manual_seed(2)
    model = VocosForSherpa(VocosBackbone(input_channels=100, dim=16, intermediate_dim=48, num_layers=1),
                           ISTFTHead(dim=16, n_fft=1024, hop_length=256, padding="center")).eval()
    path = os.path.join(out, "vocos_24khz.onnx")
    torch.onnx.export(model, (torch.randn(1, 100, 50),), path, opset_version=13, input_names=["mels"],
                      output_names=["mag", "x", "y"],
                      dynamic_axes={"mels": {0: "N", 2: "T"}, "mag": {0: "N", 2: "T"}, "x": {0: "N", 2: "T"}, "y": {0: "N", 2: "T"}})
    m = onnx.load(path)
    for key, value in VOCOS_META.items():
        meta = m.metadata_props.add()
        meta.key, meta.value = key, str(value)
    onnx.save(m, path)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--work", required=True)
    p.add_argument("--out", required=True)
    a = p.parse_args()
    sys.path[:0] = [os.environ["STAND_INS"], os.environ["ZIPVOICE_SRC"], os.environ["VOCOS_SRC"]]
    import zipvoice_imports  # noqa: F401  (before any upstream import)
    os.makedirs(a.work, exist_ok=True)
    os.makedirs(a.out, exist_ok=True)
    with torch.no_grad():
        export_zipvoice(a.work, a.out)
        export_vocos(a.out)


if __name__ == "__main__":
    main()
