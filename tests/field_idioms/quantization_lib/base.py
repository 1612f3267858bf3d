"""A base class for tensor subclasses that wrap plain inner tensors.

Subclasses name their inner tensors in ``_inner_names`` and their Python metadata in
``_meta_names``. This class implements the flatten protocol that ``torch.compile``
needs (``__tensor_flatten__`` / ``__tensor_unflatten__``) once for all of them, and
routes ``__torch_dispatch__`` through a per-class table of op implementations, falling
back to dequantizing the operands.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

import torch
from torch.utils._pytree import tree_map

OpImpl = Callable[[Any, tuple[Any, ...], dict[str, Any]], Any]


class WrapperTensor(torch.Tensor):
    """A tensor whose values live in inner tensors and are reconstructed on demand."""

    _inner_names: ClassVar[tuple[str, ...]] = ()
    _meta_names: ClassVar[tuple[str, ...]] = ()
    _ops: ClassVar[dict[Any, OpImpl]] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._ops = {}

    @staticmethod
    def __new__(cls, shape: torch.Size, dtype: torch.dtype, device: torch.device, *args: Any) -> WrapperTensor:
        return torch.Tensor._make_wrapper_subclass(cls, shape, dtype=dtype, device=device, requires_grad=False)

    def dequantize(self) -> torch.Tensor:
        """The values this tensor stands for, as a plain tensor of its outer dtype."""
        raise NotImplementedError

    def __tensor_flatten__(self) -> tuple[list[str], dict[str, Any]]:
        return list(self._inner_names), {name: getattr(self, name) for name in self._meta_names}

    @classmethod
    def __tensor_unflatten__(
        cls, inner: dict[str, torch.Tensor], meta: dict[str, Any], outer_size: torch.Size, outer_stride: Any
    ) -> WrapperTensor:
        return cls(*(inner[name] for name in cls._inner_names), *(meta[name] for name in cls._meta_names))

    @classmethod
    def implements(cls, *ops: Any) -> Callable[[OpImpl], OpImpl]:
        """Register the decorated function as this class's implementation of ``ops``."""

        def decorator(impl: OpImpl) -> OpImpl:
            for op in ops:
                cls._ops[op] = impl
            return impl

        return decorator

    @classmethod
    def __torch_dispatch__(cls, func: Any, types: Any, args: tuple[Any, ...] = (), kwargs: Any = None) -> Any:
        kwargs = kwargs or {}
        impl = cls._ops.get(func)
        if impl is not None:
            return impl(func, args, kwargs)
        unwrap = tree_map(lambda t: t.dequantize() if isinstance(t, WrapperTensor) else t, (args, kwargs))
        return func(*unwrap[0], **unwrap[1])

    __torch_function__ = torch._C._disabled_torch_function_impl
