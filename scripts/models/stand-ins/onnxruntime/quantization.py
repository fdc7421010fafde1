"""Stand-in for onnxruntime.quantization: the int8 copies are not built (see ../README.md)."""
import enum


class QuantType(enum.Enum):
    QInt8 = 0
    QUInt8 = 1


def quantize_dynamic(model_input, model_output, **_):
    """No int8 model is written: Parla's tests use the float files."""
