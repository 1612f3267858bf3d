"""Judging argument and result values with the contract of ``checker.spec.contract``.

The checker judges annotations by qualified name; the guard spells a value's type the
same way (``type(v).__module__ + "." + type(v).__qualname__``) and asks the same tables,
after folding what only exists at run time: FakeTensor, FunctionalTensor and Parameter
are ``torch.Tensor``, ``immutable_list`` is ``list``, instances of user classes are
judged through ``USER_CLASSES``. Containers are judged element by element, with
typeguard-style paths (``item 1 of argument 'xs'``).

Every walk is bounded, as beartype bounds its checks, so a call costs the same whatever
it is given: of a list, tuple or dict the first ``ITEMS`` items are judged, and of a
longer list or tuple ``SAMPLES`` more spread over the rest (the last among them);
containers nested deeper than ``DEPTH`` are not looked into, one already on the walk is
not entered again (a list that contains itself), and one walk judges at most ``BUDGET``
values. A bad item past a bound may go unreported; nothing is reported that is not so.
Whatever an argument's own code does when looked at (a ``repr``, ``__module__`` or
``__class__`` that raises) ends the check of that argument, never the call
(:mod:`runtime_guard.contained`).
"""

from __future__ import annotations

import dataclasses
import enum
import itertools
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, cast

import torch

from checker.spec import contract
from checker.spec.contract import USER_CLASSES, Entry, UserClass, Verdict
from checker.spec.messages import (
    ArgumentValueHardError,
    ArgumentValueUnproxyable,
    Message,
    ResultValueBaked,
    ResultValueUnproxyable,
)
from runtime_guard.contained import findings, module_of, text, type_name

#: Items of a list, tuple or dict judged from its start.
ITEMS = 32
#: Items of a longer list or tuple judged besides, spread evenly over the rest.
SAMPLES = 4
#: Containers nested deeper than this are not looked into.
DEPTH = 16
#: Values judged at most in one walk (one argument, or one result).
BUDGET = 1024

#: Exact types accepted at the top level without further look: the per-call fast path.
FAST_ARGUMENTS = frozenset({torch.Tensor, torch.nn.Parameter, int, float, bool, type(None), torch.dtype, torch.device})
FAST_RESULTS = frozenset({torch.Tensor, torch.nn.Parameter, type(None)})

_SEQUENCES = ("builtins.list", "builtins.tuple")
_SYM = {torch.SymInt: "torch.SymInt", torch.SymFloat: "torch.SymFloat", torch.SymBool: "torch.SymBool"}


class _DataclassParams(Protocol):
    frozen: bool


class _DataclassClass(Protocol):
    """A class made by ``@dataclass``: its parameters (``dataclasses._DataclassParams``), of which typeshed says nothing."""

    __dataclass_params__: _DataclassParams


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
    return contract.canonical(type_name(kind))


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
        # cast: the class of a dataclass instance carries dataclasses' parameters, which typeshed leaves out.
        frozen = cast("_DataclassClass", type(value)).__dataclass_params__.frozen
        return UserClass.FROZEN_DATACLASS if frozen else UserClass.DATACLASS
    module = module_of(type(value)).partition(".")[0]
    if module in sys.stdlib_module_names or module in ("builtins", "torch", "numpy"):
        return None  # precision over recall: only classes from the user's own code
    return UserClass.PLAIN


def argument_verdict(value: object, name: str | None = None) -> Entry:
    """How ``value`` fares as an argument, by the contract (container elements not judged);
    ``name`` is its :func:`qualified_name` where the caller has it."""
    entry = contract.argument(qualified_name(value) if name is None else name)
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
    def message(self) -> Message:
        """The message type for the code, worded from the value and its contract entry."""
        value, error = describe(self.value), self.entry.note or self.entry.verdict.value
        if self.code == "AIG202":
            return ResultValueBaked(self.path, value)
        return _VALUE_MESSAGES[self.code](self.path, value, error)

    @property
    def detail(self) -> str:
        return self.message.text()


_VALUE_MESSAGES: dict[str, type[ArgumentValueUnproxyable | ArgumentValueHardError | ResultValueUnproxyable]] = {
    "AIG101": ArgumentValueUnproxyable,
    "AIG102": ArgumentValueHardError,
    "AIG201": ResultValueUnproxyable,
}


def describe(value: object) -> str:
    """``a dict``, ``a float (0.5)``, ``a Tensor of shape (4,) and dtype torch.float32``."""
    kind = type(value)
    if issubclass(kind, torch.Tensor):
        return f"a Tensor of shape {tuple(value.shape)} and dtype {value.dtype}"  # type: ignore[attr-defined]
    name = type_name(kind).removeprefix("builtins.")
    if issubclass(kind, (int, float)):
        return f"a {name} ({_number(value)})"
    return f"a {name}"


def _number(value: Any) -> str:
    """The number as its base type spells it (a subclass's own ``__repr__`` is not run)."""
    spell = bool.__repr__ if type(value) is bool else float.__repr__ if issubclass(type(value), float) else int.__repr__
    try:
        return spell(value)
    except ValueError:  # an int with more digits than str() allows
        return "a number too long to show"


@dataclass(slots=True)
class _Walk:
    """What one walk has left to spend, and the containers it has entered."""

    left: int = BUDGET
    entered: set[int] = field(default_factory=set)

    def enter(self, container: object, depth: int) -> bool:
        """Whether the walk looks into ``container`` (not too deep, not entered before)."""
        if depth >= DEPTH or id(container) in self.entered:
            return False
        self.entered.add(id(container))
        return True

    def judge(self) -> bool:
        """Whether one more value may be judged."""
        self.left -= 1
        return self.left >= 0


def _sequence_items(value: Sequence[Any]) -> Iterator[tuple[int, Any]]:
    """(index, item) of the items a walk judges: the first ``ITEMS`` and ``SAMPLES`` spread
    evenly over the rest, the last among them."""
    size = len(value)
    if size <= ITEMS + SAMPLES:
        return enumerate(value)
    return _spread(value, size)


def _spread(value: Sequence[Any], size: int) -> Iterator[tuple[int, Any]]:
    for index in range(ITEMS):
        yield index, value[index]
    rest = size - 1 - ITEMS
    for step in range(1, SAMPLES + 1):
        index = ITEMS + rest * step // SAMPLES
        yield index, value[index]


def check_argument(value: object, path: str) -> Iterator[Finding]:
    """Findings for one argument: AIG101 (graph break) or AIG102 (hard error), through containers."""
    return findings(_argument(value, path, _Walk(), 0))


def _argument(value: object, path: str, walk: _Walk, depth: int) -> Iterator[Finding]:
    if type(value) in FAST_ARGUMENTS or not walk.judge():
        return
    name = qualified_name(value)
    entry = argument_verdict(value, name)
    if entry.verdict is Verdict.GRAPH_BREAK:
        yield Finding("AIG101", path, value, entry)
    elif entry.verdict is Verdict.HARD_ERROR:
        yield Finding("AIG102", path, value, entry)
    elif name in _SEQUENCES and walk.enter(value, depth):
        for index, item in _sequence_items(value):  # type: ignore[arg-type]
            if type(item) not in FAST_ARGUMENTS:  # the common items cost no generator and no path
                yield from _argument(item, f"item {index} of {path}", walk, depth + 1)
    elif name == "builtins.dict" and walk.enter(value, depth):
        for key, item in itertools.islice(value.items(), ITEMS):  # type: ignore[attr-defined]
            if type(item) not in FAST_ARGUMENTS:
                yield from _argument(item, f"value {text(key)} of {path}", walk, depth + 1)


def check_result(value: object, path: str = "the return value", inside_container: bool = False) -> Iterator[Finding]:
    """Findings for a result: AIG202 (a baked Python number) or AIG201 (graph break), through tuples/lists."""
    return findings(_result(value, path, inside_container, _Walk(), 0))


def _result(value: object, path: str, inside_container: bool, walk: _Walk, depth: int) -> Iterator[Finding]:
    if type(value) in FAST_RESULTS or not walk.judge():
        return
    entry = result_verdict(value, inside_container)
    if entry.verdict is Verdict.BAKED:
        yield Finding("AIG202", path, value, entry)
    elif entry.verdict in (Verdict.GRAPH_BREAK, Verdict.HARD_ERROR):
        yield Finding("AIG201", path, value, entry)
    elif (qualified_name(value) in _SEQUENCES or user_class(value) is UserClass.NAMEDTUPLE) and walk.enter(
        value, depth
    ):
        for index, item in _sequence_items(value):  # type: ignore[arg-type]
            yield from _result(item, f"item {index} of {path}", True, walk, depth + 1)


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
    try:
        for value in args:
            if type(value) not in fast:
                return False
        if kwargs:
            for value in kwargs.values():
                if type(value) not in fast:
                    return False
    except Exception:  # noqa: BLE001 - a metaclass whose __hash__ fails: not fast
        return False
    return True


def fast_result(value: object) -> bool:
    """Whether a result is of an exactly accepted type (nothing to check)."""
    try:
        return type(value) in FAST_RESULTS
    except Exception:  # noqa: BLE001 - a metaclass whose __hash__ fails
        return False
