"""Registration-time introspection: what a function reads besides its arguments.

Sources, as in ``shared/evidence/dynamo/FINDINGS.md`` ("Implications for a runtime
guard"): ``inspect.getclosurevars`` (closure cells and referenced globals),
``__defaults__`` / ``__kwdefaults__``, the instance of a bound method, and one level of
attributes of captured objects and modules (only attributes whose names the code reads).

- tensors, modules, containers of tensors -> AIG301 (fails loudly when compiled, S§1a);
- ndarrays, mutable containers, object attributes, and globals that some function in the
  module rebinds with a ``global`` statement -> AIG302 (frozen silently, S§1b).

Python numbers that nothing visibly rebinds are not reported: a module constant is the
common case and the guard prefers precision. A tensor reached only through a helper
function is not seen here; the TorchFunctionMode of :mod:`runtime_guard.tracing` sees it.
"""

from __future__ import annotations

import dis
import inspect
import types
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import torch

from checker.contract import CLAUSE_TEXT, CONSEQUENCE_TEXT, Clause, Consequence
from runtime_guard.values import UserClass, describe, user_class


@dataclass(frozen=True)
class Capture:
    """A value the function reads that is not an argument: ``name`` as the code spells it."""

    name: str
    origin: str
    value: object


@dataclass(frozen=True)
class CaptureFinding:
    code: str
    capture: Capture
    what: str
    why: str = ""

    @property
    def detail(self) -> str:
        name, origin = self.capture.name, self.capture.origin
        if self.code == "AIG301":
            return (
                f"reads {self.what} '{name}' from {origin} ({describe(self.capture.value)}); the contract says "
                f"{CLAUSE_TEXT[Clause.CAPTURES]}; {CONSEQUENCE_TEXT[Consequence.CAPTURED_TENSOR_FAILS]}, "
                f"and a laundered use (.tolist(), .shape) is frozen silently; pass '{name}' as an argument"
            )
        return (
            f"reads {self.what} '{name}' from {origin}{self.why}; Dynamo does not guard on what the function "
            f"reads, so {CONSEQUENCE_TEXT[Consequence.STATE_FROZEN]} (no warning, no recompile); "
            f"pass '{name}' (or what is read from it) as an argument"
        )


def code_of(fn: object) -> types.FunctionType | None:
    """The Python function whose body runs when ``fn`` is called, if there is one."""
    target = fn.__func__ if isinstance(fn, types.MethodType) else fn
    return target if isinstance(target, types.FunctionType) else None


def _read_names(code: types.CodeType) -> set[str]:
    """Global and attribute names the code reads, nested code objects (lambdas, comprehensions) included."""
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= _read_names(const)
    return names


def captures(fn: object) -> list[Capture]:
    """Every captured value of ``fn``, plus one level of attributes of captured objects."""
    func = code_of(fn)
    if func is None:
        return []
    found: list[Capture] = []
    closure = inspect.getclosurevars(func)
    found += [Capture(name, "a closure cell", value) for name, value in closure.nonlocals.items()]
    found += [Capture(name, "the module scope", value) for name, value in closure.globals.items()]
    code = func.__code__
    positional = code.co_varnames[: code.co_argcount]
    defaults = func.__defaults__ or ()
    for name, value in zip(positional[len(positional) - len(defaults) :], defaults, strict=True):
        found.append(Capture(name, "a default argument", value))
    found += [Capture(name, "a keyword-only default", value) for name, value in (func.__kwdefaults__ or {}).items()]
    read = _read_names(code)
    owners = list(found)
    if isinstance(fn, types.MethodType) and not isinstance(fn.__self__, type):
        owners.append(Capture(code.co_varnames[0] if code.co_argcount else "self", "the bound instance", fn.__self__))
    for owner in owners:
        found += _attributes(owner, read)
    return found


def _attributes(owner: Capture, read: set[str]) -> Iterator[Capture]:
    value = owner.value
    kind = user_class(value)
    if kind not in (UserClass.PLAIN, UserClass.DATACLASS, UserClass.MODULE):
        return
    if isinstance(value, torch.nn.Module):
        members: dict[str, Any] = {**vars(value), **value._parameters, **value._buffers, **value._modules}
        members = {k: v for k, v in members.items() if not k.startswith("_")}
    else:
        members = vars(value) if hasattr(value, "__dict__") else {}
    for name in sorted(read & members.keys()):
        yield Capture(f"{owner.name}.{name}", f"an attribute of {owner.origin}", members[name])


def _has_tensor(value: object) -> bool:
    items = value.values() if isinstance(value, dict) else value
    return any(isinstance(item, torch.Tensor) for item in items)  # type: ignore[union-attr]


def judge(fn: object) -> list[CaptureFinding]:
    """AIG301 and AIG302 findings for what ``fn`` captures."""
    func = code_of(fn)
    findings: list[CaptureFinding] = []
    found = captures(fn)
    examined = {c.name.partition(".")[0] for c in found if "." in c.name}
    for capture in found:
        value = capture.value
        is_attribute = "." in capture.name
        if isinstance(value, torch.Tensor):
            what = "parameter" if isinstance(value, torch.nn.Parameter) else "tensor"
            findings.append(CaptureFinding("AIG301", capture, what))
        elif isinstance(value, torch.nn.Module):
            # A module whose read attributes were reported on their own is not reported twice.
            if capture.name not in examined or is_attribute:
                findings.append(CaptureFinding("AIG301", capture, "module"))
        elif isinstance(value, (list, tuple, dict)) and _has_tensor(value):
            findings.append(CaptureFinding("AIG301", capture, "container of tensors"))
        elif type(value).__module__ == "numpy" and type(value).__name__ == "ndarray":
            findings.append(CaptureFinding("AIG302", capture, "numpy array", ", which can change in place"))
        elif isinstance(value, (list, dict, set, bytearray)):
            findings.append(CaptureFinding("AIG302", capture, "mutable container", ", shared by every call"))
        elif is_attribute and not callable(value):
            findings.append(CaptureFinding("AIG302", capture, "object attribute", ", which can be reassigned"))
        elif capture.origin == "the module scope" and func is not None and _is_scalar(value):
            rebinders = _rebinders(func.__globals__, capture.name)
            if rebinders:
                why = f", which {', '.join(rebinders)} rebinds with a global statement"
                findings.append(CaptureFinding("AIG302", capture, "global", why))
    return findings


def _is_scalar(value: object) -> bool:
    return isinstance(value, (int, float, complex, str, bytes)) or value is None


def _rebinders(namespace: dict[str, Any], name: str) -> list[str]:
    """Functions and methods defined in ``namespace``'s module that assign the global ``name``."""
    module = namespace.get("__name__")
    found: list[str] = []
    for value in list(namespace.values()):
        candidates: list[Callable[..., Any]] = []
        if isinstance(value, types.FunctionType) and value.__module__ == module:
            candidates.append(value)
        elif isinstance(value, type) and value.__module__ == module:
            candidates += [v for v in vars(value).values() if isinstance(v, types.FunctionType)]
        found += [f"'{c.__qualname__}'" for c in candidates if _stores_global(c.__code__, name)]  # type: ignore[attr-defined]
    return found


def _stores_global(code: types.CodeType, name: str) -> bool:
    if name in code.co_names and any(
        i.opname == "STORE_GLOBAL" and i.argval == name for i in dis.get_instructions(code)
    ):
        return True
    return any(_stores_global(c, name) for c in code.co_consts if isinstance(c, types.CodeType))


# -- AIG401: the same code registered again with different captured values -------------------

_MISSING = object()


def snapshot(fn: object) -> tuple[Any, ...]:
    """What distinguishes two functions made by the same ``def``: cell contents and defaults."""
    if not isinstance(fn, types.FunctionType):
        return ()
    cells = tuple(_cell(c) for c in fn.__closure__ or ())
    kwdefaults = tuple(sorted((fn.__kwdefaults__ or {}).items()))
    return (cells, fn.__defaults__ or (), kwdefaults)


def _cell(cell: types.CellType) -> object:
    try:
        return cell.cell_contents
    except ValueError:  # an empty cell
        return _MISSING


def same_captures(a: object, b: object) -> bool:
    """Whether two snapshots hold the same objects (or equal immutable scalars)."""
    if a is b:
        return True
    if isinstance(a, tuple) and isinstance(b, tuple):
        return len(a) == len(b) and all(same_captures(x, y) for x, y in zip(a, b, strict=True))
    return type(a) is type(b) and _is_scalar(a) and a == b
