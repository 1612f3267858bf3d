"""Low-precision tensor subclasses and the kernels that make and consume them."""

from .dtypes import BLOCK_SIZE, FP8_E4M3_MAX, SUPPORTED_FLOAT8_DTYPES, is_float8
from .float8 import Float8Tensor
from .int8 import Int8RowwiseTensor
from .kernels import blockwise_scales, dequantize_fp8, quantize_fp8, quantize_int8_rowwise, requantize_fp8
from .packed import Int4Linear, PackedInt4Parameter, unpack_int4

__all__ = [
    "BLOCK_SIZE",
    "FP8_E4M3_MAX",
    "SUPPORTED_FLOAT8_DTYPES",
    "Float8Tensor",
    "Int4Linear",
    "Int8RowwiseTensor",
    "PackedInt4Parameter",
    "blockwise_scales",
    "dequantize_fp8",
    "is_float8",
    "quantize_fp8",
    "quantize_int8_rowwise",
    "requantize_fp8",
    "unpack_int4",
]
