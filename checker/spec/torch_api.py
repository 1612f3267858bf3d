"""What the checker knows about torch's (and numpy's) API, as data.

The checker never imports torch; it recognises well-known names by their qualified
spelling. Lists are deliberately explicit: a name that is not listed has an unknown
kind, and unknown kinds are never reported as tensors (precision over recall).
"""

from __future__ import annotations

import enum

from checker.spec.torch_api_generated import (
    TENSOR_METHODS_RETURNING_TENSOR,
    TENSOR_METHODS_RETURNING_TENSORS,
    TORCH_TENSOR_FUNCTIONS,
    TORCH_TENSOR_SEQUENCE_FUNCTIONS,
)

#: Every spelling of the registration API (torch/_dynamo/decorators.py re-exports).
REGISTRATION_APIS = frozenset(
    {
        "torch.compiler.allow_in_graph",
        "torch._dynamo.allow_in_graph",
        "torch._dynamo.decorators.allow_in_graph",
        # aigcheck's own drop-in (strict mode) registers the same way.
        "runtime_guard.allow_in_graph",
        "runtime_guard.api.allow_in_graph",
    }
)


#: Other markers that decide how Dynamo treats a function (AIG406), by qualified name.
class Marker(enum.Enum):
    """The other Dynamo markers a function can carry; the value is the public spelling."""

    NONSTRICT_TRACE = "nonstrict_trace"
    LEAF_FUNCTION = "leaf_function"
    DISALLOW_IN_GRAPH = "disallow_in_graph"
    DISABLE = "torch.compiler.disable"

    @property
    def wins_in_any_order(self) -> bool:
        """nonstrict_trace and leaf_function win over allow_in_graph whichever is applied
        last (evidence/dynamo/FINDINGS.md D2)."""
        return self in (Marker.NONSTRICT_TRACE, Marker.LEAF_FUNCTION)


#: Decorators that make a function opaque to tracing: custom ops (their implementation is
#: called at run time, never traced by Dynamo or AOT) and Dynamo's own opaque markers (the
#: function is judged as a registration of its own). A registered body that calls one is
#: not followed into it (torch traces a custom op's fake implementation, never its body).
OPAQUE_DECORATORS = frozenset(
    {
        "torch.library.custom_op",
        "torch._library.custom_ops.custom_op",
        "torch.library.triton_op",
        "torch._library.triton.triton_op",
        "torch.library.impl",
        "torch.library.register_kernel",
        "torch._dynamo.nonstrict_trace",
        "torch._dynamo.decorators.nonstrict_trace",
        "torch.compiler.nonstrict_trace",
        "torch._dynamo.leaf_function",
        "torch._dynamo.decorators.leaf_function",
    }
)

CONFLICTING_MARKERS = {
    "torch._dynamo.nonstrict_trace": Marker.NONSTRICT_TRACE,
    "torch._dynamo.decorators.nonstrict_trace": Marker.NONSTRICT_TRACE,
    "torch._dynamo.decorators.leaf_function": Marker.LEAF_FUNCTION,
    "torch._dynamo.leaf_function": Marker.LEAF_FUNCTION,
    "torch._dynamo.disallow_in_graph": Marker.DISALLOW_IN_GRAPH,
    "torch._dynamo.decorators.disallow_in_graph": Marker.DISALLOW_IN_GRAPH,
    "torch.compiler.disable": Marker.DISABLE,
    "torch._dynamo.disable": Marker.DISABLE,
    "torch._dynamo.decorators.disable": Marker.DISABLE,
    "torch._disable_dynamo": Marker.DISABLE,
}

#: Calls that compile the function (or module) they are given or decorate.
#: Registered torch functions whose bool result Dynamo makes a constant instead of
#: graph-breaking on it (``wrap_fx_proxy_cls`` in torch/_dynamo/variables/builder.py,
#: torch 2.13); torch registers these three in torch/nn/attention/bias.py.
CONSTANT_BOOL_RESULTS = frozenset(
    {
        "torch.backends.cuda.is_flash_attention_available",
        "torch.backends.cuda.can_use_flash_attention",
        "torch.backends.cuda.can_use_efficient_attention",
    }
)

COMPILE_APIS = frozenset({"torch.compile", "torch._dynamo.optimize", "torch.compiler.compile"})

#: Torch names whose meaning the tables above give, none of them a registrar: resolving
#: one through the project's modules (when the project is torch itself) tells nothing more.
NOT_REGISTRARS = frozenset(CONFLICTING_MARKERS) | OPAQUE_DECORATORS | COMPILE_APIS

#: Base classes, by qualified name.
MODULE_BASES = frozenset({"torch.nn.Module", "torch.nn.modules.module.Module"})
AUTOGRAD_FUNCTION_BASES = frozenset(
    {"torch.autograd.Function", "torch.autograd.function.Function", "torch.autograd.function.InplaceFunction"}
)

#: ``torch.*`` functions that return a tensor: every overload in torch's stubs
#: (generated), plus Python-level functions the stubs do not cover and the reductions
#: whose ``dim=`` overload returns a named tuple of tensors.
TENSOR_FACTORIES = TORCH_TENSOR_FUNCTIONS | frozenset(
    """
    tensor as_tensor asarray from_numpy einsum norm stft istft cdist tensordot
    broadcast_to block_diag cartesian_prod where max min median mode sort topk kthvalue
    """.split()
)

#: Tensor methods (and properties) that do NOT return a tensor.
TENSOR_NON_TENSOR_METHODS = {
    "tolist": "list",
    "item": "scalar",
    "numpy": "ndarray",
    "size": "shape",
    "dim": "scalar",
    "ndimension": "scalar",
    "numel": "scalar",
    "nelement": "scalar",
    "stride": "shape",
    "storage_offset": "scalar",
    "data_ptr": "scalar",
    "element_size": "scalar",
    "is_contiguous": "scalar",
    "is_floating_point": "scalar",
    "is_complex": "scalar",
    "get_device": "scalar",
    "untyped_storage": "other",
    "storage": "other",
    "register_hook": "other",
    "backward": "other",
    "equal": "scalar",
    "allclose": "scalar",
    "__len__": "scalar",
}

#: Tensor attributes that are tensors; every other attribute is metadata.
TENSOR_ATTRIBUTES = frozenset({"T", "mT", "H", "mH", "data", "grad", "real", "imag"})

#: Tensor attributes that are immutable metadata.
TENSOR_METADATA = frozenset({"shape", "dtype", "device", "ndim", "requires_grad", "is_cuda", "layout", "names"})

#: Tensor reads that turn tensor data or metadata into Python values (AIG303).
LAUNDERING_METHODS = frozenset({"tolist", "numpy", "item", "size"})
LAUNDERING_ATTRIBUTES = frozenset({"shape"})
LAUNDERING_BUILTINS = frozenset({"builtins.float", "builtins.int", "builtins.bool", "builtins.complex"})

#: ``torch.nn`` names that construct containers of parameters rather than modules.
PARAMETER_CONTAINERS = frozenset({"torch.nn.ParameterList", "torch.nn.ParameterDict"})
PARAMETER_CONSTRUCTORS = frozenset(
    {"torch.nn.Parameter", "torch.nn.parameter.Parameter", "torch.nn.Buffer", "torch.nn.parameter.Buffer"}
)
#: Annotations that declare a tensor.
#: ``torch.Tensor`` and the classes a tensor subclass derives from to be one.
TENSOR_BASES = frozenset(
    {
        "torch.Tensor",
        "torch._tensor.Tensor",
        "torch._C.TensorBase",
        "torch.nn.Parameter",
        "torch.nn.parameter.Parameter",
        "torch.nn.parameter.Buffer",
        "torch.nn.Buffer",
    }
)

TENSOR_ANNOTATIONS = frozenset(
    {"torch.Tensor", "torch.nn.Parameter", "torch.nn.parameter.Parameter", "torch.FloatTensor", "torch.LongTensor"}
)

#: Immutable values under ``torch`` (dtypes and constants).
TORCH_DTYPES = frozenset(
    """
    float32 float float64 double float16 half bfloat16 complex64 cfloat complex128 cdouble
    uint8 int8 int16 short int32 int int64 long bool float8_e4m3fn float8_e5m2 uint16 uint32
    uint64 complex32 chalf
    """.split()
)
TORCH_CONSTANTS = frozenset({"pi", "e", "inf", "nan"})
#: ``torch.*`` calls that return immutable values.
TORCH_IMMUTABLE_CALLS = frozenset(
    {"device", "Size", "finfo", "iinfo", "get_default_dtype", "get_default_device", "dtype"}
)

#: numpy functions that return a new ndarray.
NUMPY_FACTORIES = frozenset(
    """
    array asarray ascontiguousarray zeros ones empty full arange linspace logspace eye identity
    zeros_like ones_like empty_like full_like load loadtxt frombuffer fromfile concatenate stack
    """.split()
)

#: Builtins (and stdlib callables) whose result is an immutable value.
IMMUTABLE_CALLS = frozenset(
    {
        "builtins.int", "builtins.float", "builtins.complex", "builtins.str", "builtins.bool",
        "builtins.bytes", "builtins.len", "builtins.round", "builtins.abs", "builtins.repr",
        "builtins.ord", "builtins.chr", "builtins.hash", "builtins.frozenset", "os.getenv",
        "os.environ.get", "builtins.range", "builtins.slice",
    }
)  # fmt: skip
#: Calls whose result is a mutable container.
MUTABLE_CALLS = frozenset(
    {
        "builtins.dict", "builtins.list", "builtins.set", "builtins.bytearray",
        "collections.defaultdict", "collections.OrderedDict", "collections.deque",
        "collections.Counter", "collections.ChainMap", "types.SimpleNamespace",
    }
)  # fmt: skip
PARTIAL_CALLS = frozenset({"functools.partial", "functools.partialmethod"})

#: Module objects whose attributes are constants (``math.pi``).
CONSTANT_MODULES = frozenset({"math", "cmath", "string", "sys.float_info"})


def is_torch_tensor_call(qualified: str) -> bool:
    """A ``torch.*`` or ``torch.nn.functional.*`` call known to return a tensor."""
    if qualified in PARAMETER_CONSTRUCTORS:
        return True
    for prefix in ("torch.nn.functional.", "torch.special.", "torch.linalg.", "torch.fft."):
        if qualified.startswith(prefix):
            return True
    head, _, last = qualified.rpartition(".")
    return head == "torch" and last in TENSOR_FACTORIES


def is_torch_tensors_call(qualified: str) -> bool:
    """A ``torch.*`` call that returns a tuple or list of tensors (``chunk``, ``split``)."""
    head, _, last = qualified.rpartition(".")
    return head == "torch" and last in TORCH_TENSOR_SEQUENCE_FUNCTIONS


#: Methods whose ``dim=`` overload returns a named tuple of tensors; treated as tensors.
_REDUCTIONS_WITH_DIM = frozenset({"max", "min", "median", "mode", "sort", "topk", "kthvalue", "aminmax"})


def tensor_method_result(method: str) -> str | None:
    """What ``tensor.method(...)`` returns: "tensor", "tensors", a TENSOR_NON_TENSOR_METHODS
    value, or None when unknown."""
    if method in TENSOR_NON_TENSOR_METHODS:
        return TENSOR_NON_TENSOR_METHODS[method]
    if method in TENSOR_METHODS_RETURNING_TENSOR or method in _REDUCTIONS_WITH_DIM:
        return "tensor"
    if method in TENSOR_METHODS_RETURNING_TENSORS:
        return "tensors"
    return None


def is_torch_module_class(qualified: str) -> bool:
    """``torch.nn.Linear`` and friends: capitalised names directly under ``torch.nn``."""
    head, _, last = qualified.rpartition(".")
    return (
        head in ("torch.nn", "torch.nn.modules")
        and last[:1].isupper()
        and qualified not in PARAMETER_CONTAINERS
        and qualified not in PARAMETER_CONSTRUCTORS
        and last not in ("Module",)
    ) or qualified in MODULE_BASES


def is_numpy_array_call(qualified: str) -> bool:
    head, _, last = qualified.rpartition(".")
    return (head == "numpy" and last in NUMPY_FACTORIES) or head == "numpy.random"


#: Method names of builtin types: calling one says nothing about tensors.
_BUILTIN_METHODS = frozenset(
    name for kind in (str, bytes, list, tuple, dict, set, int, float, complex) for name in dir(kind)
)
#: Tensor methods no builtin type has: ``x.sum()`` (or ``x.max()``) makes ``x`` a tensor.
TENSOR_ONLY_METHODS = (TENSOR_METHODS_RETURNING_TENSOR | _REDUCTIONS_WITH_DIM) - _BUILTIN_METHODS
