"""
Builds small Kokoro packages in the layouts sherpa-onnx publishes (kokoro-en-v0_19, kokoro-multi-lang-v1_0)
from hexgrad/kokoro's own model code (KModel, random weights, small dimensions) and k2-fsa/sherpa-onnx's own
Kokoro scripts (export_onnx.py, add_meta_data.py, generate_tokens.py), run unmodified in a work folder laid
out as they expect. Called by build.sh, which fetches both sources at pinned commits.

What differs from the published models, and why:
- Dimensions: the config is small (hidden 16, ALBERT 2 layers of 16, decoder 16 channels), and the 1024/512/64
  channel counts that hexgrad/kokoro's istftnet.Decoder writes as literals are replaced by config values in
  the work copy (same operators and graph inputs/outputs, ~1 MB instead of 325 MB).
- Vocabulary: the v1.0 config.json (with its vocab) lives on Hugging Face; the symbol table of sherpa-onnx's
  v0.19 generate_tokens.py is used as the vocab of both (178 entries, like v1.0's n_token).
- Speakers: two per package (voices.bin stays 510 x 1 x 256 float32 per speaker as published), given by a
  generate_voices_bin.py written here (add_meta_data.py imports speaker2id from it).
- Lexicons: a few words each, in the format of sherpa-onnx's generate_lexicon_*.py (word, then one token per
  phoneme symbol). No rule FSTs (building them needs pynini/kaldifst, not in Debian).
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys

import torch

V019_SPEAKERS = ["af", "am_adam"]
V10_SPEAKERS = ["af_alloy", "zf_xiaobei"]

EN_LEXICON = {
    "hello": "həlˈoʊ", "world": "wˈɜːld", "this": "ðˈɪs", "is": "ˈɪz", "a": "ɐ", "test": "tˈɛst",
    "good": "ɡˈʊd", "morning": "mˈɔːɹnɪŋ", "speech": "spˈiːtʃ", "one": "wˈʌn", "two": "tˈuː", "three": "θɹˈiː",
}
ZH_LEXICON = {
    "你": "ni↓", "好": "xau↓", "世": "ʂɨ↘", "界": "tɕje↘", "我": "wo↓", "们": "mən", "的": "tə",
    "语": "y↓", "音": "in→", "测": "tsʰɤ↘", "试": "ʂɨ↘", "中": "tʂʊŋ→", "文": "wən↗",
}


def config(vocab):
    return {
        "istftnet": {
            "upsample_kernel_sizes": [20, 12], "upsample_rates": [10, 6], "gen_istft_hop_size": 5,
            "gen_istft_n_fft": 20, "resblock_dilation_sizes": [[1, 3, 5], [1, 3, 5], [1, 3, 5]],
            "resblock_kernel_sizes": [3, 7, 11], "upsample_initial_channel": 16,
        },
        "dim_in": 16, "dropout": 0.2, "hidden_dim": 16, "max_conv_dim": 16, "max_dur": 8, "multispeaker": True,
        "n_layer": 2, "n_mels": 80, "n_token": 178, "style_dim": 128, "text_encoder_kernel_size": 5,
        "plbert": {"hidden_size": 16, "embedding_size": 16, "num_attention_heads": 2, "intermediate_size": 32,
                   "max_position_embeddings": 512, "num_hidden_layers": 2, "dropout": 0.1},
        "vocab": vocab,
    }


def full_config(vocab):
    """Kokoro-82M's published v1.0 dimensions (its config.json on Hugging Face): 81.8 M parameters."""
    return {
        "istftnet": {
            "upsample_kernel_sizes": [20, 12], "upsample_rates": [10, 6], "gen_istft_hop_size": 5,
            "gen_istft_n_fft": 20, "resblock_dilation_sizes": [[1, 3, 5], [1, 3, 5], [1, 3, 5]],
            "resblock_kernel_sizes": [3, 7, 11], "upsample_initial_channel": 512,
        },
        "dim_in": 64, "dropout": 0.2, "hidden_dim": 512, "max_conv_dim": 512, "max_dur": 50, "multispeaker": True,
        "n_layer": 3, "n_mels": 80, "n_token": 178, "style_dim": 128, "text_encoder_kernel_size": 5,
        "plbert": {"hidden_size": 768, "num_attention_heads": 12, "intermediate_size": 2048,
                   "max_position_embeddings": 512, "num_hidden_layers": 12, "dropout": 0.1},
        "vocab": vocab,
    }


def shrink_decoder(path, channels, residual):
    """The decoder's literal channel counts become config values (see the module doc)."""
    src = open(path, encoding="utf-8").read()
    start = src.index("class Decoder(nn.Module):")
    head, body = src[:start], src[start:]
    body = body.replace("1024", str(channels), 8)
    body = body.replace(f"{channels}, style_dim, upsample=True", "upsample_initial_channel, style_dim, upsample=True")
    body = body.replace(f", 512, style_dim, upsample=True", ", upsample_initial_channel, style_dim, upsample=True")
    body = body.replace("nn.Conv1d(512, 64, kernel_size=1)", f"nn.Conv1d(dim_in, {residual}, kernel_size=1)")
    body = body.replace(f"{channels} + 2 + 64", f"{channels} + 2 + {residual}")
    assert "1024" not in body.split("def forward")[0] and "512" not in body.split("def forward")[0], "unexpected Decoder source"
    open(path, "w", encoding="utf-8").write(head + body)


def run(script, cwd, *args):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([cwd, os.environ["KOKORO_SRC"], os.environ["STAND_INS"]]))
    # torch_compat must run before hexgrad/kokoro imports weight_norm.
    code = f"import torch_compat, runpy, sys; sys.argv = {[script, *args]!r}; runpy.run_path({script!r}, run_name='__main__')"
    subprocess.run([sys.executable, "-c", code], cwd=cwd, env=env, check=True, stdout=subprocess.DEVNULL)


def voices_module(path, speakers):
    with open(path, "w", encoding="utf-8") as f:
        f.write("# Written by Parla's build.py: the speakers of this test package, in voices.bin order.\n")
        f.write(f"id2speaker = {dict(enumerate(speakers))!r}\n")
        f.write("speaker2id = {speaker: idx for idx, speaker in id2speaker.items()}\n")


def random_weights(cfg, path, seed):
    sys.path[:0] = [os.environ["KOKORO_SRC"], os.environ["STAND_INS"]]
    import torch_compat  # noqa: F401
    from kokoro.model import KModel
    torch.manual_seed(seed)
    empty = path + ".empty"
    torch.save({}, empty)
    model = KModel(repo_id="not-used", config=cfg, model=empty, disable_complex=True)
    os.remove(empty)
    torch.save({k: getattr(model, k).state_dict() for k in ["bert", "bert_encoder", "predictor", "text_encoder", "decoder"]}, path)


def write_voices(path, speakers, styles):
    with open(path, "wb") as f:
        for s in speakers:
            f.write(styles[s].numpy().astype("float32").tobytes())


def lexicon(path, entries):
    with open(path, "w", encoding="utf-8") as f:
        for word, phones in entries.items():
            f.write(f"{word} {' '.join(phones)}\n")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--work", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--full", action="store_true", help="Kokoro-82M's own dimensions, multi-language layout only")
    a = p.parse_args()
    sherpa = os.environ["SHERPA_SCRIPTS"]
    if not a.full:
        shrink_decoder(os.path.join(os.environ["KOKORO_SRC"], "kokoro", "istftnet.py"), 16, 8)

    sys.path.insert(0, os.path.join(sherpa, "v0.19"))
    from generate_tokens import get_vocab
    vocab = get_vocab()
    cfg = full_config(vocab) if a.full else config(vocab)
    gen = torch.Generator().manual_seed(7)
    styles = {s: torch.randn(510, 1, 256, generator=gen) * 0.3 for s in V019_SPEAKERS + V10_SPEAKERS}

    # v1.0: Kokoro-82M/{config.json,kokoro-v1_0.pth,voices/*.pt} as export_onnx.py and add_meta_data.py read them.
    w = os.path.join(a.work, "v1.0")
    shutil.copytree(os.path.join(sherpa, "v1.0"), w)
    os.makedirs(os.path.join(w, "Kokoro-82M", "voices"))
    json.dump(cfg, open(os.path.join(w, "Kokoro-82M", "config.json"), "w", encoding="utf-8"), ensure_ascii=False)
    random_weights(cfg, os.path.join(w, "Kokoro-82M", "kokoro-v1_0.pth"), 1)
    for s in V10_SPEAKERS:
        torch.save(styles[s], os.path.join(w, "Kokoro-82M", "voices", f"{s}.pt"))
    voices_module(os.path.join(w, "generate_voices_bin.py"), V10_SPEAKERS)
    run("export_onnx.py", w)
    run("add_meta_data.py", w)
    run("generate_tokens.py", w)
    out = os.path.join(a.out, "kokoro-multi-lang-v1_0")
    os.makedirs(out, exist_ok=True)
    shutil.copy(os.path.join(w, "kokoro.onnx"), os.path.join(out, "model.onnx"))
    shutil.copy(os.path.join(w, "tokens.txt"), out)
    write_voices(os.path.join(out, "voices.bin"), V10_SPEAKERS, styles)
    lexicon(os.path.join(out, "lexicon-us-en.txt"), EN_LEXICON)
    lexicon(os.path.join(out, "lexicon-zh.txt"), ZH_LEXICON)
    if a.full:
        return

    # v0.19: the same export, then v0.19's own add_meta_data.py and generate_tokens.py (kLegacy's ONNX has
    # the same inputs and output; its weights are on Hugging Face).
    w = os.path.join(a.work, "v0.19")
    shutil.copytree(os.path.join(sherpa, "v0.19"), w)
    shutil.copytree(os.path.join(a.work, "v1.0", "Kokoro-82M"), os.path.join(w, "Kokoro-82M"))
    random_weights(cfg, os.path.join(w, "Kokoro-82M", "kokoro-v1_0.pth"), 2)
    shutil.copy(os.path.join(sherpa, "v1.0", "export_onnx.py"), os.path.join(w, "export_onnx.py"))
    os.makedirs(os.path.join(w, "kLegacy", "v0.19", "voices"))
    for s in V019_SPEAKERS:
        torch.save(styles[s], os.path.join(w, "kLegacy", "v0.19", "voices", f"{s}.pt"))
    voices_module(os.path.join(w, "generate_voices_bin.py"), V019_SPEAKERS)
    run("export_onnx.py", w)
    os.rename(os.path.join(w, "kokoro.onnx"), os.path.join(w, "model.onnx"))
    run("add_meta_data.py", w, "--model", "./model.onnx")
    run("generate_tokens.py", w)
    out = os.path.join(a.out, "kokoro-en-v0_19")
    os.makedirs(out, exist_ok=True)
    shutil.copy(os.path.join(w, "model.onnx"), out)
    shutil.copy(os.path.join(w, "tokens.txt"), out)
    write_voices(os.path.join(out, "voices.bin"), V019_SPEAKERS, styles)


if __name__ == "__main__":
    main()
