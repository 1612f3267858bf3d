"""Custom-gradient ops as ``torch.autograd.Function`` subclasses, kept whole under torch.compile."""

from .cross_entropy import FusedCrossEntropy, cross_entropy
from .fake_quant import FakeQuantize, enable_stochastic_rounding, fake_quantize
from .options import FakeQuantSpec, Reduction, SoftcapConfig
from .scaled_gelu import ScaledGelu, scaled_gelu
from .softcap import Softcap, softcap

__all__ = [
    "FakeQuantSpec",
    "FakeQuantize",
    "FusedCrossEntropy",
    "Reduction",
    "ScaledGelu",
    "Softcap",
    "SoftcapConfig",
    "cross_entropy",
    "enable_stochastic_rounding",
    "fake_quantize",
    "scaled_gelu",
    "softcap",
]
