"""
Stand-ins for what jaywalnut310/vits's code and sherpa-onnx's scripts/vits/export-onnx-ljs.py import and Debian
lacks (see README.md). Importing this module registers them in sys.modules.
"""
import sys
import types


def _module(name, **attrs):
    module = types.ModuleType(name)
    module.__dict__.update(attrs)
    sys.modules[name] = module
    return module


def _unused(*args, **kwargs):
    raise RuntimeError("stand-in: not available in this build")


def _skip_quantization(model_input, model_output, **kwargs):
    """onnxruntime.quantization.quantize_dynamic: no int8 copy is made (the float model is packaged)."""
    print(f"stand-in: not quantizing {model_input} (no onnxruntime in Debian)", file=sys.stderr)


def _phonemize(text, **kwargs):
    """
    phonemizer.phonemize, called once by the export for the example sentence it traces with: the text itself,
    lower case (every letter is in vits's symbol table), which gives the trace an input of the same kind.
    """
    return text.lower() if isinstance(text, str) else [t.lower() for t in text]


_module("onnxruntime")
_module("onnxruntime.quantization", QuantType=type("QuantType", (), {"QInt8": "QInt8", "QUInt8": "QUInt8"}), quantize_dynamic=_skip_quantization)
_module("phonemizer", phonemize=_phonemize)
_module("unidecode", unidecode=lambda text: text)
# utils.py reads training audio with scipy's wav reader.
_module("scipy")
_module("scipy.io")
_module("scipy.io.wavfile", read=_unused)
