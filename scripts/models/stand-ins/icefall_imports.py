"""
Stand-ins for what k2-fsa/icefall's Zipformer recipe (egs/librispeech/ASR/zipformer: train.py, model.py,
scaling.py, export-onnx-streaming.py) and the icefall modules it imports (utils, checkpoint, env) import and
Debian lacks (see README.md). Importing this module registers them in sys.modules.

Only three names do work when a model with random weights is built and exported: k2.SymbolTable (the export reads
tokens.txt with it), the k2/lhotse version fields icefall.env records in the training parameters, and
packaging.version.parse (icefall.utils compares torch's version). Everything else is a name the imported code
binds (often only in a type annotation) and never calls while exporting.
"""
import re
import sys
import types

import torch


class _Unused:
    """A name the imported code binds but the build never calls."""

    def __init__(self, *args, **kwargs):
        raise RuntimeError("stand-in: not available in this build")


def _unused(*args, **kwargs):
    raise RuntimeError("stand-in: not available in this build")


def _missing(attr):
    if attr.startswith("__"):
        raise AttributeError(attr)
    return _Unused


def _module(name, **attrs):
    """A module whose listed names are given and whose other names are _Unused (annotations, unused imports)."""
    module = types.ModuleType(name)
    module.__dict__.update(attrs)
    module.__file__ = f"<stand-in {name}>"
    module.__getattr__ = _missing
    sys.modules[name] = module
    parent, _, child = name.rpartition(".")
    if parent in sys.modules:
        setattr(sys.modules[parent], child, module)
    return module


class SymbolTable:
    """k2.SymbolTable as the export uses it: symbol <-> id from a `symbol id` file (tokens.txt)."""

    def __init__(self, pairs):
        self._id = dict(pairs)
        self._sym = {i: s for s, i in pairs}

    @staticmethod
    def from_file(filename):
        pairs = []
        with open(filename, encoding="utf-8") as f:
            for line in f:
                fields = line.split()
                if len(fields) == 2:
                    pairs.append((fields[0], int(fields[1])))
        return SymbolTable(pairs)

    @property
    def symbols(self):
        return list(self._id)

    def __getitem__(self, key):
        return self._sym[key] if isinstance(key, int) else self._id[key]

    def __contains__(self, key):
        return key in (self._sym if isinstance(key, int) else self._id)


def _swoosh(offset, constant):
    # The published activations (scaling.py's SwooshL/SwooshR formulas): log(1 + exp(x - offset)) - 0.08 x - c.
    def forward(x):
        return torch.logaddexp(torch.zeros_like(x), x - offset) - 0.08 * x - constant
    return forward


# k2 (FSA library with CUDA kernels): the token table, the swoosh kernels (formula of scaling.py) and versions.
_k2 = _module("k2", SymbolTable=SymbolTable, with_cuda=False,
              swoosh_l_forward=_swoosh(4.0, 0.035), swoosh_r_forward=_swoosh(1.0, 0.313261687))
_k2.swoosh_l = _k2.swoosh_l_forward
_k2.swoosh_r = _k2.swoosh_r_forward
_module("k2.version", __version__="stand-in", __build_type__="none", __git_sha1__="none", __git_date__="none")
_module("k2.ragged")
# lhotse (data preparation): versions for icefall.env; the rest binds names of its training pipeline.
_module("lhotse", __version__="stand-in")
for _name in ("lhotse.cut", "lhotse.utils", "lhotse.dataset", "lhotse.dataset.sampling",
              "lhotse.dataset.sampling.base", "lhotse.dataset.signal_transforms"):
    _module(_name)
sys.modules["lhotse.utils"].fix_random_seed = _unused
# Text, alignment and logging helpers of training and scoring.
_module("kaldialign")
_module("sentencepiece")
_module("pypinyin", lazy_pinyin=_unused, pinyin=_unused)
_module("pypinyin.contrib")
_module("pypinyin.contrib.tone_convert")
_module("torch.utils.tensorboard", SummaryWriter=_Unused)
# The recipe's LibriSpeech data module (a symlink into another recipe, built on lhotse).
_module("asr_datamodule", LibriSpeechAsrDataModule=_Unused)
# onnxruntime.quantization: the export's int8 copies are switched off (--enable-int8-quantization 0).
_module("onnxruntime")
_module("onnxruntime.quantization", QuantType=_Unused, quantize_dynamic=_unused)


def _parse_version(text):
    """packaging.version.parse for comparisons of release numbers: '1.13.0a0+gitunknown' -> (1, 13, 0)."""
    return tuple(int(re.match(r"\d*", p).group() or 0) for p in text.split("+")[0].split(".")[:3])


try:
    import packaging.version  # noqa: F401
except ImportError:
    _module("packaging")
    _module("packaging.version", parse=_parse_version)

