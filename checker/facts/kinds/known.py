"""What a name, a call or a method result is by the tables alone, before any binding is followed.

Python's builtins and the tables of :mod:`checker.spec.torch_api` say that ``torch.ones(4)``
is a tensor, ``x.tolist()`` on a tensor a list, ``math.pi`` immutable; the tables here say
which loggers, files and streams act outside the program (``logging.getLogger(...)``,
``open(...)``, ``sys.stderr``, ``tqdm(...)``), and which functions do (``warnings.warn``).
"""

from __future__ import annotations

from checker.facts.kinds.kind import NONE, UNKNOWN, Basis, Inferred, Kind
from checker.spec import torch_api as api

_MODULE_RETURNING_METHODS = frozenset(
    {"to", "cuda", "cpu", "float", "half", "double", "bfloat16", "eval", "train", "requires_grad_", "type"}
)

#: Factories of loggers, by the last part of their name: the standard library's and the
#: ``get_logger`` helpers of libraries built on it (transformers, diffusers, accelerate).
LOGGER_FACTORIES = frozenset({"getLogger", "get_logger"})
#: Calls that return an open file or a progress bar (a handle).
_HANDLE_CALLS = frozenset(
    {
        "builtins.open", "io.open", "codecs.open", "gzip.open", "bz2.open", "lzma.open",
        "tqdm.tqdm", "tqdm.trange", "tqdm.auto.tqdm", "tqdm.auto.trange", "tqdm.std.tqdm",
        "tqdm.notebook.tqdm", "tqdm.rich.tqdm",
    }
)  # fmt: skip
#: Names bound to a handle: the standard streams.
_HANDLE_NAMES = frozenset({"sys.stdout", "sys.stderr", "sys.__stdout__", "sys.__stderr__"})
#: Functions that act outside the program, with how messages spell a call of each: a name
#: bound to one (``from warnings import warn``, ``write = sys.stdout.write``) is that function
#: in every module that imports it.
SIDE_EFFECT_CALLS = {
    "builtins.print": "print()",
    "builtins.open": "open()",
    "builtins.input": "input()",
    "warnings.warn": "warnings.warn()",
    "sys.stdout.write": "sys.stdout.write()",
    "sys.stderr.write": "sys.stderr.write()",
}


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


def known_name(name: str) -> Inferred | None:
    """What the qualified ``name`` is, when the tables say: a torch dtype or constant, a
    standard stream, a function that acts outside the program."""
    head, _, last = name.rpartition(".")
    if head == "torch" and (last in api.TORCH_DTYPES or last in api.TORCH_CONSTANTS):
        return Inferred(Kind.IMMUTABLE, Basis.NAME, name)
    if name in _HANDLE_NAMES:
        return Inferred(Kind.HANDLE, Basis.NAME, name)
    if name in SIDE_EFFECT_CALLS:
        return Inferred(Kind.FUNCTION, Basis.NAME, name)
    return None


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
    if last in LOGGER_FACTORIES or name in _HANDLE_CALLS:
        return Inferred(Kind.HANDLE, Basis.CALL, name)
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
