"""The ``allow_in_graph`` contract as data: the one definition both halves read.

The static checker judges annotations and expressions with it; the runtime guard
judges values with it (``type(value)`` spelled as ``module.qualname``). Everything
here is standard library only, so the checker never needs torch.

Three sets per direction (arguments, results): what the documentation promises, what
works in practice in torch 2.13 although undocumented, and what is known to break and
how. Each entry cites the experiment that shows it: ``S§n`` and ``D§n`` are the
sections Sn and Dn of ``evidence/dynamo/FINDINGS.md``.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass


class Clause(enum.Enum):
    """The three clauses of the documented contract."""

    INPUTS = "inputs"
    OUTPUTS = "outputs"
    CAPTURES = "captures"


#: The documentation's words, quoted in messages.
CLAUSE_TEXT = {
    Clause.INPUTS: (
        "inputs must be Proxy-able: Tensor, int, bool, float, None, lists and tuples of those "
        "(elements may be None), torch.dtype and torch.device"
    ),
    Clause.OUTPUTS: "outputs must be Proxy-able, like the inputs",
    Clause.CAPTURES: "every tensor the function uses must be passed in as an argument, not captured",
}


class Consequence(enum.Enum):
    """What torch does when a clause is broken: worded once, for the checker's and the
    runtime guard's messages about the same mistake."""

    CAPTURED_TENSOR_FAILS = "captured-tensor-fails"
    STATE_FROZEN = "state-frozen"
    RESULT_GRAPH_BREAKS = "result-graph-breaks"


#: Measured in evidence/dynamo/FINDINGS.md sections S1a, S1b and S3.
CONSEQUENCE_TEXT = {
    Consequence.CAPTURED_TENSOR_FAILS: "compiling fails with 'Please convert all Tensors to FakeTensors first'",
    Consequence.STATE_FROZEN: "aot_eager and inductor freeze the value read at compile time and never see a change",
    Consequence.RESULT_GRAPH_BREAKS: (
        "Dynamo graph-breaks with 'torch.* op returned non-Tensor' and traces the body instead, losing the registration"
    ),
}


class Answer(enum.Enum):
    """The three answers the contract gives about a value: it breaks the contract, it is
    fine, or nothing is known. Only VIOLATES is ever reported."""

    VIOLATES = "violates"
    FINE = "fine"
    UNKNOWN = "unknown"


class Verdict(enum.Enum):
    """What torch 2.13 does with a value of some type at the allow_in_graph boundary."""

    DOCUMENTED = "documented"
    WORKS = "works in practice (undocumented)"
    BAKED = "becomes a compile-time constant"
    GRAPH_BREAK = "graph break: the body is traced, opacity is lost"
    HARD_ERROR = "compilation fails"
    UNKNOWN = "unknown"

    @property
    def acceptable(self) -> bool:
        return self in (Verdict.DOCUMENTED, Verdict.WORKS)

    @property
    def answer(self) -> Answer:
        if self is Verdict.UNKNOWN:
            return Answer.UNKNOWN
        return Answer.FINE if self.acceptable else Answer.VIOLATES


@dataclass(frozen=True)
class Entry:
    verdict: Verdict
    evidence: str
    note: str = ""


_D, _W, _B, _G, _H = Verdict.DOCUMENTED, Verdict.WORKS, Verdict.BAKED, Verdict.GRAPH_BREAK, Verdict.HARD_ERROR

#: Argument types, by canonical qualified name.
ARGUMENTS: dict[str, Entry] = {
    "torch.Tensor": Entry(_D, "S§2", "nn.Parameter arrives as a FakeTensor, then a FunctionalTensor"),
    "builtins.int": Entry(_D, "S§2", "specialised; a new value recompiles"),
    "builtins.float": Entry(_D, "S§2", "specialised; a new value recompiles"),
    "builtins.bool": Entry(_D, "S§2", "specialised; a new value recompiles"),
    "builtins.NoneType": Entry(_D, "S§2"),
    "builtins.list": Entry(_D, "S§2", "elements are judged one by one; arrives as immutable_list"),
    "builtins.tuple": Entry(_D, "S§2", "elements are judged one by one"),
    "torch.dtype": Entry(_D, "S§2"),
    "torch.device": Entry(_D, "S§2"),
    "builtins.str": Entry(_W, "S§2"),
    "builtins.dict": Entry(_W, "S§2", "values are judged one by one"),
    "builtins.slice": Entry(_W, "S§2", "a new value recompiles"),
    "enum.Enum": Entry(_W, "S§2"),
    "torch.Size": Entry(_W, "S§2", "arrives as a plain tuple"),
    "torch.SymInt": Entry(_W, "S§2"),
    "torch.SymFloat": Entry(_W, "S§2"),
    "torch.SymBool": Entry(_W, "S§2"),
    "torch.distributed.ProcessGroup": Entry(_W, "DESIGN§1 (exp_group_args.py)"),
    "torch.distributed.device_mesh.DeviceMesh": Entry(_W, "DESIGN§1 (exp_group_args.py)"),
    "torch.nn.Module": Entry(_G, "S§2", "Failed to convert args/kwargs to proxy"),
    "types.FunctionType": Entry(_G, "S§2", "Failed to convert args/kwargs to proxy"),
    "collections.abc.Callable": Entry(_G, "S§2", "Failed to convert args/kwargs to proxy"),
    "numpy.ndarray": Entry(_H, "S§2", "TorchRuntimeError: expected np.ndarray (got FakeTensor)"),
    "builtins.builtin_function_or_method": Entry(_H, "S§2", "InternalTorchDynamoError: NotImplementedError"),
}

#: Result types, by canonical qualified name, when returned at the top level.
RESULTS: dict[str, Entry] = {
    "torch.Tensor": Entry(_D, "S§3"),
    "builtins.NoneType": Entry(_D, "S§3"),
    "builtins.list": Entry(_D, "S§3", "elements are judged one by one"),
    "builtins.tuple": Entry(_D, "S§3", "elements are judged one by one"),
    "torch.Size": Entry(_W, "S§3"),
    "torch.SymInt": Entry(_W, "S§3"),
    "torch.SymFloat": Entry(_W, "S§3", "an unbacked SymFloat from .item() under fullgraph=True"),
    "builtins.float": Entry(_B, "S§3", "the value from Dynamo's fake-tensor call is replayed on every call"),
    "builtins.int": Entry(_G, "S§3", "torch.* op returned non-Tensor"),
    "builtins.bool": Entry(_G, "S§3", "torch.* op returned non-Tensor"),
    "builtins.str": Entry(_G, "S§3", "torch.* op returned non-Tensor"),
    "builtins.dict": Entry(_G, "S§3", "torch.* op returned non-Tensor"),
    "builtins.set": Entry(_G, "S§3 (by the same rule: not an accepted result type)", "torch.* op returned non-Tensor"),
    "torch.dtype": Entry(_G, "S§3", "torch.* op returned non-Tensor"),
    "types.FunctionType": Entry(_G, "S§3 (by the same rule: not an accepted result type)"),
}

#: Python numbers inside a returned tuple or list are baked too (S§3).
RESULT_ELEMENTS: dict[str, Entry] = {
    "builtins.int": Entry(_B, "S§3", "an int inside a returned tuple is baked into the graph"),
    "builtins.float": Entry(_B, "S§3", "a float inside a returned tuple is baked into the graph"),
}


class UserClass(enum.Enum):
    """How a class defined by the user behaves as an argument or result. UNKNOWN: a base
    class leaves the checked project or cannot be resolved, so nothing is known."""

    FROZEN_DATACLASS = "frozen dataclass"
    NAMEDTUPLE = "NamedTuple"
    ENUM = "Enum"
    DATACLASS = "dataclass (not frozen)"
    PLAIN = "plain class"
    MODULE = "nn.Module subclass"
    TRACEABLE_SUBCLASS = "tensor subclass with __tensor_flatten__"
    BARE_SUBCLASS = "tensor subclass without __tensor_flatten__"
    UNKNOWN = "class of unknown kind"


_FAKE_SUBCLASS = "Creating a new Tensor subclass ... already associated to a python object of type FakeTensor"

#: Instances of user classes as arguments.
USER_CLASSES: dict[UserClass, Entry] = {
    UserClass.FROZEN_DATACLASS: Entry(_W, "D§9"),
    UserClass.NAMEDTUPLE: Entry(_W, "D§9, S§3", "namedtuple results are accepted too"),
    UserClass.ENUM: Entry(_W, "D§9, S§2"),
    UserClass.DATACLASS: Entry(_G, "D§9, S§2", "Failed to convert args/kwargs to proxy"),
    UserClass.PLAIN: Entry(_G, "D§9, S§2", "Failed to convert args/kwargs to proxy"),
    UserClass.MODULE: Entry(_G, "S§2", "Failed to convert args/kwargs to proxy"),
    UserClass.TRACEABLE_SUBCLASS: Entry(_D, "S§11", "a tensor"),
    # Not listed, so unknown: BARE_SUBCLASS (D§11: eager and inductor ok, aot_eager raises), UNKNOWN.
}

#: Instances of user classes as results: a tensor subclass fails loudly unless traceable.
USER_CLASS_RESULTS: dict[UserClass, Entry] = {
    **USER_CLASSES,
    UserClass.TRACEABLE_SUBCLASS: Entry(_D, "S§11", "a tensor"),
    UserClass.BARE_SUBCLASS: Entry(_H, "S§11", _FAKE_SUBCLASS),
}

#: A registered class constructed in compiled code: its instance is the call's result.
CONSTRUCTED: dict[UserClass, Entry] = {
    UserClass.PLAIN: Entry(_G, "D§11", "torch.* op returned non-Tensor"),
    UserClass.DATACLASS: Entry(_G, "D§11", "torch.* op returned non-Tensor"),
    UserClass.FROZEN_DATACLASS: Entry(_G, "D§11", "torch.* op returned non-Tensor"),
    UserClass.NAMEDTUPLE: Entry(_W, "D§11"),
    UserClass.TRACEABLE_SUBCLASS: Entry(_D, "D§11", "a tensor"),
    UserClass.BARE_SUBCLASS: Entry(_H, "D§11", _FAKE_SUBCLASS),
    # Not listed, so unknown: ENUM (not measured), MODULE (D§10: AIG402's), UNKNOWN.
}

#: Other spellings of the canonical names above (annotations, runtime types).
ALIASES = {
    "torch.nn.Parameter": "torch.Tensor",
    "torch.nn.parameter.Parameter": "torch.Tensor",
    "torch.nn.parameter.Buffer": "torch.Tensor",
    "torch._tensor.Tensor": "torch.Tensor",
    "torch._C.TensorBase": "torch.Tensor",
    "torch.nn.modules.module.Module": "torch.nn.Module",
    "builtins.None": "builtins.NoneType",
    "types.NoneType": "builtins.NoneType",
    "typing.List": "builtins.list",
    "typing.Tuple": "builtins.tuple",
    "typing.Dict": "builtins.dict",
    "typing.Set": "builtins.set",
    "typing.Mapping": "builtins.dict",
    "collections.abc.Mapping": "builtins.dict",
    "typing.Sequence": "builtins.list",
    "collections.abc.Sequence": "builtins.list",
    "typing.Callable": "collections.abc.Callable",
    "builtins.function": "types.FunctionType",
    "numpy.typing.NDArray": "numpy.ndarray",
    "torch.types.Device": "torch.device",
    "torch._C.dtype": "torch.dtype",
    "torch._C.device": "torch.device",
    "torch._C._distributed_c10d.ProcessGroup": "torch.distributed.ProcessGroup",
    "torch.fx.immutable_collections.immutable_list": "builtins.list",
}


def user_class(category: UserClass, *, result: bool = False) -> Entry:
    """How an instance of a user class fares as an argument or a result; UNKNOWN when unlisted."""
    return (USER_CLASS_RESULTS if result else USER_CLASSES).get(category, _UNKNOWN)


def constructed(category: UserClass) -> Entry:
    """How constructing a registered class in compiled code fares; UNKNOWN when unlisted."""
    return CONSTRUCTED.get(category, _UNKNOWN)


def canonical(qualified: str) -> str:
    """The name the tables use for ``qualified`` (``torch.nn.Parameter`` -> ``torch.Tensor``)."""
    return ALIASES.get(qualified, qualified)


def argument(qualified: str) -> Entry:
    """How an argument of this type fares; UNKNOWN when the contract does not say."""
    return ARGUMENTS.get(canonical(qualified), _UNKNOWN)


def result(qualified: str, inside_container: bool = False) -> Entry:
    """How a result of this type fares, at the top level or as an element of a tuple/list."""
    name = canonical(qualified)
    if inside_container and name in RESULT_ELEMENTS:
        return RESULT_ELEMENTS[name]
    return RESULTS.get(name, _UNKNOWN)


_UNKNOWN = Entry(Verdict.UNKNOWN, "")

#: The documented argument types, as the documentation lists them.
DOCUMENTED_ARGUMENTS = frozenset(name for name, entry in ARGUMENTS.items() if entry.verdict is Verdict.DOCUMENTED)
