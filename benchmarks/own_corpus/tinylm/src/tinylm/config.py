"""Switches read by the kernels; scripts flip them before building a model."""

USE_FLASH = True
ROPE_THETA = 10000.0
KV_CACHE_DTYPE = "bfloat16"
