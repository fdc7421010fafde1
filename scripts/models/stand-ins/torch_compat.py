"""Lets code written for torch >= 2.1 build and export on Debian's torch 1.13. See README.md."""
import math

import torch
import torch.nn.utils
import torch.nn.utils.parametrizations as parametrizations
from torch.onnx import register_custom_op_symbolic, symbolic_helper

if not hasattr(parametrizations, "weight_norm"):
    parametrizations.weight_norm = torch.nn.utils.weight_norm


def _repeat_interleave(g, values, repeats, dim=None, output_size=None):
    """
    repeat_interleave of a 1-D tensor by a 1-D tensor of counts (torch 1.13's own exporter fails on a dynamic
    count vector): output position j takes the element i whose cumulative count first exceeds j.
    """
    ends = g.op("CumSum", repeats, g.op("Constant", value_t=torch.tensor(0)))
    total = g.op("ReduceMax", ends, keepdims_i=1)
    positions = g.op("Range", g.op("Constant", value_t=torch.tensor(0, dtype=torch.long)),
                     g.op("Squeeze", total, g.op("Constant", value_t=torch.tensor([0]))),
                     g.op("Constant", value_t=torch.tensor(1, dtype=torch.long)))
    passed = g.op("GreaterOrEqual", g.op("Unsqueeze", positions, g.op("Constant", value_t=torch.tensor([1]))),
                  g.op("Unsqueeze", ends, g.op("Constant", value_t=torch.tensor([0]))))
    index = g.op("ReduceSum", g.op("Cast", passed, to_i=7), g.op("Constant", value_t=torch.tensor([1])), keepdims_i=0)
    return g.op("Gather", values, index, axis_i=0)


def _atan2(g, y, x):
    """atan2 (no exporter in torch 1.13; torch 2 exports it the same way): atan(y/x), moved by ±π when x < 0."""
    base = g.op("Atan", g.op("Div", y, x))
    zero = g.op("Constant", value_t=torch.tensor(0.0))
    pi = g.op("Constant", value_t=torch.tensor(math.pi))
    shifted = g.op("Where", g.op("Greater", y, zero), g.op("Add", base, pi), g.op("Sub", base, pi))
    return g.op("Where", g.op("Less", x, zero), shifted, base)


register_custom_op_symbolic("aten::repeat_interleave", _repeat_interleave, 14)
register_custom_op_symbolic("aten::atan2", _atan2, 14)
_ = symbolic_helper  # imported for its side effect of loading the ONNX registry first
