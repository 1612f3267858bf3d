"""What a name, a call or a method result is by the tables alone, before any binding is followed.

Python's builtins and the tables of :mod:`checker.spec.torch_api` say that ``torch.ones(4)``
is a tensor, ``x.tolist()`` on a tensor a list, ``math.pi`` immutable.
"""

from __future__ import annotations

from checker.facts.kinds.kind import NONE, UNKNOWN, Basis, Inferred, Kind
from checker.spec import torch_api as api

_MODULE_RETURNING_METHODS = frozenset(
    {"to", "cuda", "cpu", "float", "half", "double", "bfloat16", "eval", "train", "requires_grad_", "type"}
)


def without_function_body(inferred: Inferred) -> Inferred:
    """Functions of other modules come back without their definition: their bodies are
    judged where they are, not here."""
    if inferred.kind is Kind.FUNCTION:
        return Inferred(Kind.FUNCTION, inferred.basis, inferred.subject)
    return inferred


def builtin(name: str) -> Inferred:
    """What a name no scope binds is: ``None``, a constant, or a builtin function."""
    if name == "None":
        return NONE
    if name in ("True", "False", "Ellipsis", "__name__", "__file__", "__doc__"):
        return Inferred(Kind.IMMUTABLE, Basis.NAME, name)
    return Inferred(Kind.FUNCTION, Basis.BUILTIN, name)


def known_call(name: str) -> Inferred | None:
    """What calling the function with qualified name ``name`` returns, when the tables say."""
    if api.is_torch_tensor_call(name):
        return Inferred(Kind.TENSOR, Basis.CALL, name)
    if api.is_torch_tensors_call(name):
        return Inferred(Kind.TENSOR_CONTAINER, Basis.CALL, name)
    if name in api.PARAMETER_CONTAINERS:
        return Inferred(Kind.TENSOR_CONTAINER, Basis.CALL, name)
    if api.is_torch_module_class(name):
        return Inferred(Kind.MODULE, Basis.CALL, name)
    if api.is_numpy_array_call(name):
        return Inferred(Kind.NDARRAY, Basis.CALL, name)
    head, _, last = name.rpartition(".")
    if name in api.IMMUTABLE_CALLS or (head == "torch" and last in api.TORCH_IMMUTABLE_CALLS) or head == "math":
        return Inferred(Kind.IMMUTABLE, Basis.CALL, name)
    if name in api.MUTABLE_CALLS:
        return Inferred(Kind.MUTABLE, Basis.CALL, name)
    if name in api.PARTIAL_CALLS:
        return Inferred(Kind.PARTIAL, Basis.CALL, name)
    return None


def method_result(receiver: Inferred, method: str) -> Inferred | None:
    """What calling ``method`` on a tensor, an array or a module returns, when the tables say."""
    if receiver.kind is Kind.TENSOR:
        result = api.tensor_method_result(method)
        if result is None:
            return UNKNOWN
        return {
            "tensor": Inferred(Kind.TENSOR, Basis.TENSOR_METHOD, method),
            "tensors": Inferred(Kind.TENSOR_CONTAINER, Basis.TENSOR_METHOD, method),
            "list": Inferred(Kind.MUTABLE, Basis.TENSOR_CONVERSION, method),
            "scalar": Inferred(Kind.IMMUTABLE, Basis.TENSOR_CONVERSION, method),
            "shape": Inferred(Kind.IMMUTABLE, Basis.TENSOR_CONVERSION, method),
            "ndarray": Inferred(Kind.NDARRAY, Basis.TENSOR_CONVERSION, method),
        }.get(result, UNKNOWN)
    if receiver.kind is Kind.NDARRAY:
        if method == "tolist":
            return Inferred(Kind.MUTABLE, Basis.ARRAY_CONVERSION, method)
        if method == "item":
            return Inferred(Kind.IMMUTABLE, Basis.ARRAY_CONVERSION, method)
        return Inferred(Kind.NDARRAY, Basis.ARRAY_METHOD, method)
    if receiver.kind is Kind.MODULE and method in _MODULE_RETURNING_METHODS:
        return receiver
    return None
