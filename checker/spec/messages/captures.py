"""Messages about what a registered function reads besides its arguments (AIG301-AIG303)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Generic

from checker.spec.contract import CLAUSE_TEXT, CONSEQUENCE_TEXT, Clause, Consequence
from checker.spec.links import Place
from checker.spec.messages.base import Call, Function, L, Message, bound, lead

_CAPTURES = f"the contract says {CLAUSE_TEXT[Clause.CAPTURES]}"


@dataclass(frozen=True)
class ReadsCapturedTensor(Message, Generic[L]):
    """AIG301: reads ``what`` (``tensor``, ``module``...) ``name`` from ``source`` (``the
    module scope``), bound at ``bound``; the runtime guard adds the value it ``saw``."""

    code = "AIG301"
    fixes_the_function = True
    function: Function | None
    what: str
    name: str
    source: str
    bound: L | None = None
    chain: tuple[Call[L], ...] = ()
    saw: str = ""

    def text(self) -> str:
        saw = f" ({self.saw})" if self.saw else ""
        return (
            f"{lead(self.function, self.chain)}reads {self.what} '{self.name}' from {self.source}{bound(self.bound)}"
            f"{saw}; {_CAPTURES} ({CONSEQUENCE_TEXT[Consequence.CAPTURED_TENSOR_FAILS]}); "
            f"pass '{self.name}' as an argument"
        )


@dataclass(frozen=True)
class DefaultIsTensor(Message, Generic[L]):
    """AIG301: the default of ``parameter`` is a ``what``, evaluated once when the def runs."""

    code = "AIG301"
    fixes_the_function = True
    function: Function
    parameter: str
    what: str
    chain: tuple[Call[L], ...] = ()

    def text(self) -> str:
        return (
            f"{lead(self.function, self.chain)}the default of '{self.parameter}' is a {self.what} evaluated once, "
            "when the def runs, so the function uses a tensor that is not passed in; pass it explicitly at every call"
        )


_FROZEN = CONSEQUENCE_TEXT[Consequence.STATE_FROZEN]


@dataclass(frozen=True)
class ReadsChangingState(Message, Generic[L]):
    """AIG302: reads ``name`` from ``source``, which can change after compilation:
    ``changes`` says how (``and it is reassigned in a loop``), ``changed`` where."""

    code = "AIG302"
    fixes_the_function = True
    function: Function | None
    what: str
    name: str
    source: str
    changes: str
    changed: L | Place | None = None
    bound: L | None = None
    chain: tuple[Call[L], ...] = ()

    def text(self) -> str:
        what = f"{self.what} " if self.what else ""
        return (
            f"{lead(self.function, self.chain)}reads {what}'{self.name}' from {self.source}{bound(self.bound)}, "
            f"{self.changes}{bound(self.changed)}; {_FROZEN}; pass '{self.name}' as an argument"
        )


@dataclass(frozen=True)
class DefaultIsMutable(Message, Generic[L]):
    """AIG302: the default of ``parameter`` is a ``what`` shared by every call."""

    code = "AIG302"
    function: Function
    parameter: str
    what: str
    chain: tuple[Call[L], ...] = ()

    def text(self) -> str:
        return (
            f"{lead(self.function, self.chain)}reads the default of '{self.parameter}', a {self.what} shared by "
            f"every call; {_FROZEN}; default to None and build the container inside the function, or pass it as "
            "an argument"
        )


@dataclass(frozen=True)
class LaundersCapturedTensor(Message, Generic[L]):
    """AIG303: turns captured tensor ``name`` into Python data with ``how`` (``.tolist()``);
    ``loud``: compiling fails (``.item()``), rather than baking the value."""

    code = "AIG303"
    fixes_the_function = True
    function: Function
    how: str
    name: str
    source: str
    loud: bool
    bound: L | None = None
    chain: tuple[Call[L], ...] = ()

    def text(self) -> str:
        effect = (
            CONSEQUENCE_TEXT[Consequence.CAPTURED_TENSOR_FAILS]
            if self.loud
            else "aot_eager and inductor bake the compile-time value into the graph and silently ignore later changes"
        )
        return (
            f"{lead(self.function, self.chain)}uses {self.how} of captured tensor '{self.name}' from "
            f"{self.source}{bound(self.bound)}; {effect}; pass '{self.name}' (or the value) as an argument"
        )


@dataclass(frozen=True)
class TensorInOp(Message):
    """AIG301, as the runtime guard sees it while the body runs: op ``op`` was handed a
    ``what`` (``tensor``) that is not an argument; ``name`` is how the function reaches it,
    when it is one of its captures (otherwise a helper or an object returned it)."""

    code = "AIG301"
    what: str
    name: str | None
    shape: tuple[int, ...]
    dtype: str
    op: str

    def text(self) -> str:
        return (
            f"uses the captured {_seen(self.what, self.name, self.shape, self.dtype)} in {self.op}; {_CAPTURES}; "
            f"{CONSEQUENCE_TEXT[Consequence.CAPTURED_TENSOR_FAILS]}; pass it as an argument"
        )


@dataclass(frozen=True)
class TensorToDataInOp(Message):
    """AIG303, as the runtime guard sees it while the body runs: ``op`` (``Tensor.tolist``)
    turned a captured ``what`` into Python data; the fields as for :class:`TensorInOp`."""

    code = "AIG303"
    what: str
    name: str | None
    shape: tuple[int, ...]
    dtype: str
    op: str

    def text(self) -> str:
        return (
            f"converts the captured {_seen(self.what, self.name, self.shape, self.dtype)} to Python data with "
            f"{self.op}; {_CAPTURES}; {_FROZEN}; pass the tensor as an argument"
        )


@dataclass(frozen=True)
class LeftWhileTracing(Message):
    """AIG301, as the runtime guard sees it after a traced call returns: the call left a
    ``what`` (``FakeTensor``) it created while tracing in the program's own ``holder``
    (``dict``, ``lru_cache of``) ``container`` (``pkg.kernels._MEMO``), under ``key`` for a
    dict; every later call that reads it back fails (evidence/dynamo/FINDINGS.md S§12)."""

    code = "AIG301"
    what: str
    shape: tuple[int, ...]
    dtype: str
    holder: str
    container: str
    key: str | None = None

    def text(self) -> str:
        key = f", key {self.key}" if self.key is not None else ""
        return (
            f"leaves a {self.what} (shape {self.shape}, dtype {self.dtype}) created while tracing in the "
            f"{self.holder} {self.container}{key}; {_CAPTURES}; the program keeps it after compiling, so every call "
            "that reads it back fails, the compiled one and every later eager call alike, until it is cleared "
            "(S§12); pass the tensor in as an argument, or build it outside the registered function"
        )


def _seen(what: str, name: str | None, shape: tuple[int, ...], dtype: str) -> str:
    """``tensor 'W' (shape (4,), dtype torch.float32)``, or, for a tensor no capture names,
    ``tensor of shape (4,) and dtype torch.float32 (reached through a helper or an object)``."""
    if name:
        return f"{what} '{name}' (shape {shape}, dtype {dtype})"
    return f"{what} of shape {shape} and dtype {dtype} (reached through a helper or an object)"
