"""
Stand-ins for what k2-fsa/ZipVoice's model and export code import and Debian lacks (see README.md). Importing
this module registers them in sys.modules; none of them is called when a model is built with random weights
and exported, except quantize_dynamic (below).
"""
import logging
import sys
import types


def _module(name, **attrs):
    module = types.ModuleType(name)
    module.__dict__.update(attrs)
    sys.modules[name] = module
    return module


class _Unused:
    """A name the imported code binds but the build never calls."""

    def __init__(self, *args, **kwargs):
        raise RuntimeError("stand-in: not available in this build")


def _unused(*args, **kwargs):
    raise RuntimeError("stand-in: not available in this build")


def _skip_quantization(model_input, model_output, **kwargs):
    """onnxruntime.quantization.quantize_dynamic: the int8 copies are not made (the float models are used)."""
    print(f"stand-in: not quantizing {model_input} (no onnxruntime in Debian)", file=sys.stderr)


class _QuantType:
    QInt8 = "QInt8"
    QUInt8 = "QUInt8"


# zipvoice/bin/onnx_export.py
_module("safetensors")
_module("safetensors.torch", load_model=_unused)
_module("onnxruntime")
_module("onnxruntime.quantization", QuantType=_QuantType, quantize_dynamic=_skip_quantization)
# zipvoice/tokenizer/{tokenizer,normalizer}.py (the text front ends; the export reads tokens.txt only)
_module("jieba", cut=_unused, default_logger=logging.getLogger("jieba"))
_module("piper_phonemize", phonemize_espeak=_unused)
_module("pypinyin", Style=_Unused, lazy_pinyin=_unused)
_module("pypinyin.contrib")
_module("pypinyin.contrib.tone_convert", to_finals_tone3=_unused, to_initials=_unused)
_module("cn2an", an2cn=_unused, transform=_unused)
_module("inflect", engine=_Unused)
# zipvoice/utils/{checkpoint,common}.py (training helpers)
_module("lhotse", CutSet=_Unused)
_module("lhotse.dataset")
_module("lhotse.dataset.sampling")
_module("lhotse.dataset.sampling.base", CutSampler=_Unused)
_module("torch.utils.tensorboard", SummaryWriter=_Unused)


class _Version:
    @staticmethod
    def parse(text):
        return tuple(int(p) for p in text.split("+")[0].split(".")[:3] if p.isdigit())


if "packaging" not in sys.modules:
    try:
        import packaging.version  # noqa: F401
    except ImportError:
        _module("packaging", version=_Version)
        _module("packaging.version", parse=_Version.parse)
# gemelo-ai/vocos vocos/heads.py, vocos/spectral_ops.py (the mel helpers of other heads; the ISTFT is the runtime's)
_module("torchaudio")
_module("torchaudio.functional")
_module("torchaudio.functional.functional", _hz_to_mel=_unused, _mel_to_hz=_unused)
_module("scipy", signal=None)
