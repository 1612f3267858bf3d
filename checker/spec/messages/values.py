"""Messages about what crosses the boundary: parameters, arguments, results (AIG101-AIG203)."""

from __future__ import annotations

import enum
from dataclasses import dataclass

from checker.spec.contract import CLAUSE_TEXT, CONSEQUENCE_TEXT, Clause, Consequence
from checker.spec.messages.base import Function, Message

# -- inputs: AIG101-AIG105 ---------------------------------------------------------------

_INPUTS = CLAUSE_TEXT[Clause.INPUTS]


@dataclass(frozen=True)
class ParameterUnproxyable(Message):
    """AIG101: ``parameter`` admits a type Dynamo cannot proxy (``admits``, torch's ``error``)."""

    code = "AIG101"
    function: Function
    parameter: str
    admits: str
    error: str = ""

    def text(self) -> str:
        return (
            f"{self.function}: parameter '{self.parameter}' admits {self.admits}, which Dynamo cannot proxy "
            f"({self.error or 'graph break'}); the call graph-breaks and the body is traced, losing "
            f"the registration; {_INPUTS}: pass tensors and plain values instead"
        )


@dataclass(frozen=True)
class ParameterHardError(Message):
    """AIG102: ``parameter`` admits a numpy array, which fails compilation with ``error``."""

    code = "AIG102"
    function: Function
    parameter: str
    admits: str
    error: str

    def text(self) -> str:
        return (
            f"{self.function}: parameter '{self.parameter}' admits {self.admits}; Dynamo hands the function a "
            f"FakeTensor instead and compiling fails ({self.error}); convert to a tensor before the "
            "call and take a torch.Tensor"
        )


@dataclass(frozen=True)
class ParameterIsCtx(Message):
    """AIG103: ``parameter`` is an autograd context: the body reads ``parameter.saved``."""

    code = "AIG103"
    parameter: str
    saved: str

    def text(self) -> str:
        return (
            f"parameter '{self.parameter}' is an autograd context: the body reads "
            f"{self.parameter}.{self.saved}; a ctx cannot be passed into the graph and its saved tensors are "
            "captured, not arguments; register the autograd.Function subclass, or pass the tensors"
        )


@dataclass(frozen=True)
class ReceivesCtx(Message):
    """AIG103: ``method`` (``Scale.forward``) passes its autograd context ``ctx`` to the
    registered ``helper``."""

    code = "AIG103"
    ctx: str
    method: str
    helper: str

    def text(self) -> str:
        return (
            f"{self.method}() passes its autograd context '{self.ctx}' to the registered {self.helper}(); "
            "a ctx cannot be passed into the graph: compiling fails on every backend with 'AssertionError: "
            "lift_tracked_freevar_to_input should not be called on root SubgraphTracer', which names neither; "
            "register the autograd.Function subclass, or pass the tensors"
        )


class Passed(enum.Enum):
    """What a call passes to a registered function that Dynamo cannot put in the graph (AIG104)."""

    BUILTIN = "builtin"
    FUNCTION = "function"
    MODULE = "module"
    NDARRAY = "ndarray"
    INSTANCE = "instance"


#: ``{d}`` is the detail: the builtin's name, the instance's class category.
_PASSED = {
    Passed.BUILTIN: "the builtin function {d} (InternalTorchDynamoError)",
    Passed.FUNCTION: "a function",
    Passed.MODULE: "an nn.Module",
    Passed.NDARRAY: "a numpy array (compilation fails: expected np.ndarray, got FakeTensor)",
    Passed.INSTANCE: "a {d} instance",
}


@dataclass(frozen=True)
class ArgumentUnproxyable(Message):
    """AIG104: a call passes a ``passed`` (``detail``: the builtin's name, or the instance's
    class category) to ``target``."""

    code = "AIG104"
    passed: Passed
    target: str
    detail: str = ""

    def text(self) -> str:
        return (
            f"passes {_PASSED[self.passed].format(d=self.detail)} to registered {self.target}(); Dynamo cannot "
            "put it in the graph, so the call graph-breaks (or fails) and the registration is lost; pass tensors "
            "and plain values instead"
        )


@dataclass(frozen=True)
class ParameterUndocumented(Message):
    """AIG105: ``parameter`` admits a type that works but is outside the documented contract."""

    code = "AIG105"
    function: Function
    parameter: str
    admits: str

    def text(self) -> str:
        return (
            f"{self.function}: parameter '{self.parameter}' admits {self.admits}, which works in torch 2.13 "
            f"but is not documented: {_INPUTS}"
        )


# -- outputs: AIG201-AIG203 --------------------------------------------------------------

_GRAPH_BREAKS = CONSEQUENCE_TEXT[Consequence.RESULT_GRAPH_BREAKS]
_RETURN_TENSORS = f"{_GRAPH_BREAKS}; return tensors (or None, lists and tuples of them) and compute the rest outside"


@dataclass(frozen=True)
class AnnotatedUnproxyableResult(Message):
    """AIG201: the return annotation admits ``admits``, which Dynamo graph-breaks on."""

    code = "AIG201"
    function: Function
    admits: str

    def text(self) -> str:
        return f"{self.function}: the return annotation admits {self.admits}; {_RETURN_TENSORS}"


@dataclass(frozen=True)
class ReturnsUnproxyable(Message):
    """AIG201: a ``return`` returns ``returns`` (``a dict``, ``a Result object``)."""

    code = "AIG201"
    fixes_the_function = True
    function: Function
    returns: str

    def text(self) -> str:
        return f"{self.function}: returns {self.returns}; {_RETURN_TENSORS}"


@dataclass(frozen=True)
class ConstructsUnproxyable(Message):
    """AIG201: ``registration`` registers class ``name`` (``category``), whose instance is not Proxy-able."""

    code = "AIG201"
    registration: str
    name: str
    category: str

    def text(self) -> str:
        return (
            f"{self.registration}: registers the class {self.name} ({self.category}), so constructing it in "
            f"compiled code is a graph call that returns a {self.name} object, which is not Proxy-able; "
            f"{_GRAPH_BREAKS}; register a function that builds it from tensors outside the graph, or do not "
            "register the class"
        )


@dataclass(frozen=True)
class ReturnsBakedNumber(Message):
    """AIG202: returns ``returns`` (a Python number) as, or ``inside``, its result."""

    code = "AIG202"
    fixes_the_function = True
    function: Function
    returns: str
    inside: bool

    def text(self) -> str:
        where = "in its result" if self.inside else "as its result"
        return (
            f"{self.function}: returns {self.returns} {where} that is not fixed by the arguments; Dynamo bakes the "
            "value from its compile-time call into the graph and returns it on every call, on every backend; "
            "return a tensor (e.g. torch.tensor(...) or keep the 0-dim tensor) instead"
        )


_SUBCLASS_FAILS = (
    "the first compiled call fails on every backend ('Creating a new Tensor subclass ... but the raw Tensor "
    "object is already associated to a python object of type FakeTensor')"
)
_FLATTEN = (
    "implement __tensor_flatten__ and __tensor_unflatten__ (a traceable wrapper subclass), or return a plain "
    "tensor and wrap it outside the registered function"
)


@dataclass(frozen=True)
class AnnotatedUntraceableSubclass(Message):
    """AIG203: the return annotation admits ``admits``, a tensor subclass without the flatten protocol."""

    code = "AIG203"
    function: Function
    admits: str

    def text(self) -> str:
        return (
            f"{self.function}: the return annotation admits {self.admits}, a tensor "
            f"subclass without the flatten protocol; {_SUBCLASS_FAILS}; {_FLATTEN}"
        )


@dataclass(frozen=True)
class ReturnsUntraceableSubclass(Message):
    """AIG203: a ``return`` returns ``returns``, a tensor subclass without the flatten protocol."""

    code = "AIG203"
    fixes_the_function = True
    function: Function
    returns: str

    def text(self) -> str:
        return (
            f"{self.function}: returns {self.returns}, a tensor subclass without the flatten "
            f"protocol; {_SUBCLASS_FAILS}; {_FLATTEN}"
        )


@dataclass(frozen=True)
class ConstructsUntraceableSubclass(Message):
    """AIG203: ``registration`` registers ``name``, a tensor subclass without the flatten protocol."""

    code = "AIG203"
    registration: str
    name: str

    def text(self) -> str:
        return (
            f"{self.registration}: registers {self.name}, a tensor subclass "
            f"without the flatten protocol, so constructing it in compiled code is a graph call: "
            f"{_SUBCLASS_FAILS}; {_FLATTEN}, or do not register the class"
        )


# -- values as the runtime guard sees them at a call ---------------------------------------
#
# The checker judges annotations and expressions, the guard the values themselves: ``path``
# says where the value sits (``item 1 of argument 'xs'``), ``value`` what it is (``a dict``),
# ``error`` what torch reports (the contract entry's note, or its verdict).

_OUTPUTS = CLAUSE_TEXT[Clause.OUTPUTS]


@dataclass(frozen=True)
class ArgumentValueUnproxyable(Message):
    """AIG101 at run time: the argument at ``path`` is ``value``, which Dynamo cannot proxy."""

    code = "AIG101"
    path: str
    value: str
    error: str

    def text(self) -> str:
        return (
            f"{self.path} is {self.value}; {_INPUTS}; Dynamo cannot proxy it ({self.error}), so the call "
            "graph-breaks and the body is traced, losing opacity; pass tensors and Python numbers, or a frozen "
            "dataclass / NamedTuple of them"
        )


@dataclass(frozen=True)
class ArgumentValueHardError(Message):
    """AIG102 at run time: the argument at ``path`` is ``value``, which fails compilation."""

    code = "AIG102"
    path: str
    value: str
    error: str

    def text(self) -> str:
        return (
            f"{self.path} is {self.value}; {_INPUTS}; compilation fails ({self.error}); "
            "convert it with torch.as_tensor before the call"
        )


@dataclass(frozen=True)
class ResultValueUnproxyable(Message):
    """AIG201 at run time: the result at ``path`` is ``value``, which Dynamo graph-breaks on."""

    code = "AIG201"
    path: str
    value: str
    error: str

    def text(self) -> str:
        return (
            f"{self.path} is {self.value}; {_OUTPUTS}; {_GRAPH_BREAKS} ({self.error}); "
            "return tensors, or tuples and lists of tensors"
        )


@dataclass(frozen=True)
class ResultValueBaked(Message):
    """AIG202 at run time: the result at ``path`` is ``value``, a Python number Dynamo bakes."""

    code = "AIG202"
    path: str
    value: str

    def text(self) -> str:
        return (
            f"{self.path} is {self.value}; {_OUTPUTS}; Dynamo freezes the value seen while compiling into the graph "
            "and every compiled call returns it; return it as a tensor (unless it depends only on argument shapes)"
        )


@dataclass(frozen=True)
class GraphBrokeOnResult(Message):
    """AIG201 in a graph: a function registered without the guard returned a ``returned``
    (a type name, as Dynamo's reason gives it), and Dynamo graph-broke at the call."""

    code = "AIG201"
    returned: str

    def text(self) -> str:
        return (
            f"the return value is a {self.returned}; Dynamo graph-broke at the call ('torch.* op returned "
            "non-Tensor') and traced the body instead; return tensors, or tuples and lists of tensors"
        )
