"""Judging argument and result values with the contract of ``checker.contract``.

The checker judges annotations by qualified name; the guard spells a value's type the
same way (``type(v).__module__ + "." + type(v).__qualname__``) and asks the same tables,
after folding what only exists at run time: FakeTensor, FunctionalTensor and Parameter
are ``torch.Tensor``, ``immutable_list`` is ``list``, instances of user classes are
judged through ``USER_CLASSES``. Containers are judged element by element, with
typeguard-style paths (``item 1 of argument 'xs'``).
"""

from __future__ import annotations

import dataclasses
import enum
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import torch

from checker import contract
from checker.contract import CLAUSE_TEXT, CONSEQUENCE_TEXT, USER_CLASSES, Clause, Consequence, Entry, UserClass, Verdict

#: Exact types accepted at the top level without further look: the per-call fast path.
FAST_ARGUMENTS = frozenset({torch.Tensor, torch.nn.Parameter, int, float, bool, type(None), torch.dtype, torch.device})
FAST_RESULTS = frozenset({torch.Tensor, torch.nn.Parameter, type(None)})

_SEQUENCES = ("builtins.list", "builtins.tuple")
_SYM = {torch.SymInt: "torch.SymInt", torch.SymFloat: "torch.SymFloat", torch.SymBool: "torch.SymBool"}


def qualified_name(value: object) -> str:
    """The contract's name for the type of ``value`` (``torch.Tensor`` for a FakeTensor)."""
    if isinstance(value, torch.Tensor):
        return "torch.Tensor"
    if isinstance(value, torch.nn.Module):
        return "torch.nn.Module"
    if isinstance(value, enum.Enum):
        return "enum.Enum"
    kind = type(value)
    if kind in _SYM:
        return _SYM[kind]
    return contract.canonical(f"{kind.__module__}.{kind.__qualname__}")


def user_class(value: object) -> UserClass | None:
    """How an instance of a class the user wrote fares, or ``None`` for other values."""
    if isinstance(value, type):
        return None
    if isinstance(value, torch.nn.Module):
        return UserClass.MODULE
    if isinstance(value, enum.Enum):
        return UserClass.ENUM
    if isinstance(value, tuple) and hasattr(type(value), "_fields"):
        return UserClass.NAMEDTUPLE
    if dataclasses.is_dataclass(value):
        frozen = type(value).__dataclass_params__.frozen  # type: ignore[attr-defined]
        return UserClass.FROZEN_DATACLASS if frozen else UserClass.DATACLASS
    module = type(value).__module__.partition(".")[0]
    if module in sys.stdlib_module_names or module in ("builtins", "torch", "numpy"):
        return None  # precision over recall: only classes from the user's own code
    return UserClass.PLAIN


def argument_verdict(value: object) -> Entry:
    """How ``value`` fares as an argument, by the contract (container elements not judged)."""
    entry = contract.argument(qualified_name(value))
    if entry.verdict is Verdict.UNKNOWN:
        kind = user_class(value)
        if kind is not None:
            return USER_CLASSES[kind]
    return entry


def result_verdict(value: object, inside_container: bool = False) -> Entry:
    """How ``value`` fares as a result, at the top level or inside a returned tuple/list."""
    entry = contract.result(qualified_name(value), inside_container)
    if entry.verdict is Verdict.UNKNOWN:
        kind = user_class(value)
        if kind is UserClass.NAMEDTUPLE:
            return Entry(Verdict.WORKS, "S§3", "namedtuple results are accepted")
        if kind in (UserClass.PLAIN, UserClass.DATACLASS, UserClass.MODULE):
            return Entry(Verdict.GRAPH_BREAK, "S§3", "torch.* op returned non-Tensor")
    return entry


@dataclass(frozen=True)
class Finding:
    """A value at ``path`` that breaks the contract, and the code that says how."""

    code: str
    path: str
    value: object
    entry: Entry

    @property
    def detail(self) -> str:
        what = f"{self.path} is {describe(self.value)}"
        return f"{what}; {_CONSEQUENCE[self.code](self.entry)}"


def describe(value: object) -> str:
    """``a dict``, ``a float (0.5)``, ``a Tensor of shape (4,) and dtype torch.float32``."""
    if isinstance(value, torch.Tensor):
        return f"a Tensor of shape {tuple(value.shape)} and dtype {value.dtype}"
    kind = type(value)
    name = kind.__qualname__ if kind.__module__ == "builtins" else f"{kind.__module__}.{kind.__qualname__}"
    if isinstance(value, (int, float, bool)):
        return f"a {name} ({value!r})"
    return f"a {name}"


_CONSEQUENCE = {
    "AIG101": lambda e: (
        f"{CLAUSE_TEXT[Clause.INPUTS]}; Dynamo cannot proxy it ({e.note or e.verdict.value}), so the call "
        "graph-breaks and the body is traced, losing opacity; pass tensors and Python numbers, or a frozen "
        "dataclass / NamedTuple of them"
    ),
    "AIG102": lambda e: (
        f"{CLAUSE_TEXT[Clause.INPUTS]}; compilation fails ({e.note or e.verdict.value}); "
        "convert it with torch.as_tensor before the call"
    ),
    "AIG201": lambda e: (
        f"{CLAUSE_TEXT[Clause.OUTPUTS]}; {CONSEQUENCE_TEXT[Consequence.RESULT_GRAPH_BREAKS]} ({e.note or e.verdict.value}); "
        "return tensors, or tuples and lists of tensors"
    ),
    "AIG202": lambda e: (
        f"{CLAUSE_TEXT[Clause.OUTPUTS]}; Dynamo freezes the value seen while compiling into the graph "
        "and every compiled call returns it; return it as a tensor (unless it depends only on argument shapes)"
    ),
}


def check_argument(value: object, path: str) -> Iterator[Finding]:
    """Findings for one argument: AIG101 (graph break) or AIG102 (hard error), through containers."""
    if type(value) in FAST_ARGUMENTS:
        return
    entry = argument_verdict(value)
    if entry.verdict is Verdict.GRAPH_BREAK:
        yield Finding("AIG101", path, value, entry)
    elif entry.verdict is Verdict.HARD_ERROR:
        yield Finding("AIG102", path, value, entry)
    elif qualified_name(value) in _SEQUENCES:
        for index, item in enumerate(value):  # type: ignore[arg-type]
            yield from check_argument(item, f"item {index} of {path}")
    elif qualified_name(value) == "builtins.dict":
        for key, item in value.items():  # type: ignore[attr-defined]
            yield from check_argument(item, f"value {key!r} of {path}")


def check_result(value: object, path: str = "the return value", inside_container: bool = False) -> Iterator[Finding]:
    """Findings for a result: AIG202 (a baked Python number) or AIG201 (graph break), through tuples/lists."""
    if type(value) in FAST_RESULTS:
        return
    entry = result_verdict(value, inside_container)
    if entry.verdict is Verdict.BAKED:
        yield Finding("AIG202", path, value, entry)
    elif entry.verdict in (Verdict.GRAPH_BREAK, Verdict.HARD_ERROR):
        yield Finding("AIG201", path, value, entry)
    elif qualified_name(value) in _SEQUENCES or user_class(value) is UserClass.NAMEDTUPLE:
        for index, item in enumerate(value):  # type: ignore[arg-type]
            yield from check_result(item, f"item {index} of {path}", inside_container=True)


def check_call(names: Sequence[str], args: tuple[Any, ...], kwargs: dict[str, Any]) -> Iterator[Finding]:
    """Findings for every argument of one call; ``names`` are the positional parameter names."""
    for index, value in enumerate(args):
        name = names[index] if index < len(names) else f"#{index}"
        yield from check_argument(value, f"argument '{name}'")
    for name, value in kwargs.items():
        yield from check_argument(value, f"argument '{name}'")


def fast_ok(args: tuple[Any, ...], kwargs: dict[str, Any]) -> bool:
    """Whether every argument is of an exactly accepted type (no container to descend)."""
    fast = FAST_ARGUMENTS
    for value in args:
        if type(value) not in fast:
            return False
    if kwargs:
        for value in kwargs.values():
            if type(value) not in fast:
                return False
    return True
