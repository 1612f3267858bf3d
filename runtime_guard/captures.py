"""Registration-time introspection: what a function reads besides its arguments.

Sources, as in ``evidence/dynamo/FINDINGS.md`` section S14 ("Implications for a
runtime guard"): ``inspect.getclosurevars`` (closure cells and referenced globals),
``__defaults__`` / ``__kwdefaults__``, the instance of a bound method, and the attributes
the code reads of captured objects and of captured modules (``config.LOSS_SCALE``),
followed ``ATTRIBUTE_DEPTH`` levels deep (``self.cfg.eps``).

- tensors, modules, containers of tensors -> AIG301 (fails loudly when compiled, S§1a);
- ndarrays, mutable containers, object attributes of any Python-scalar type, and globals
  or module attributes that some function rebinds (a ``global`` statement in their module,
  or ``config.X = ...`` in the registering module) -> AIG302 (frozen silently, S§1b, D15).

A Python number that nothing visibly rebinds is not reported: a module constant is the
common case and the guard prefers precision. A tensor reached only through a helper
function is not seen here; the TorchFunctionMode of :mod:`runtime_guard.tracing` sees it.
Attributes are read with ``inspect.getattr_static``, so properties and ``__getattr__``
are never called. What user code still runs (a ``__dict__`` property, a metaclass's
``__module__``) is contained: a capture whose own code fails is left unjudged, never a
failure of the registration (:mod:`runtime_guard.contained`).
"""

from __future__ import annotations

import dis
import enum
import inspect
import sys
import types
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import torch

from checker.spec.messages import ReadsCapturedTensor, ReadsChangingState
from runtime_guard import contained
from runtime_guard.values import describe

#: How many attribute levels are followed from a captured object (``self.cfg.eps`` is 2).
ATTRIBUTE_DEPTH = 2

_SCALARS = (int, float, complex, str, bytes, bool, type(None))
#: Modules whose attributes are library API, never the user's state.
LIBRARY_ROOTS = frozenset({"builtins", "torch", "numpy", "typing", "functools"}) | frozenset(sys.stdlib_module_names)


class Origin(enum.Enum):
    """Where a captured value comes from."""

    CELL = "a closure cell"
    GLOBAL = "the module scope"
    DEFAULT = "a default argument"
    KWDEFAULT = "a keyword-only default"
    INSTANCE = "the bound instance"
    ATTRIBUTE = "an attribute"


@dataclass(frozen=True)
class Capture:
    """A value the function reads that is not an argument: ``name`` as the code spells it."""

    name: str
    origin: Origin
    value: object
    #: For an attribute: the capture it was read from.
    owner: Capture | None = None

    @property
    def where(self) -> str:
        """``a closure cell``, ``an attribute of the module scope``, ``module 'config'``."""
        if self.owner is None:
            return self.origin.value
        if isinstance(self.owner.value, types.ModuleType):
            return f"module '{self.owner.value.__name__}'"
        return f"an attribute of {self.owner.where}"


class Kind(enum.Enum):
    """What a capture is, for the message."""

    TENSOR = "tensor"
    PARAMETER = "parameter"
    MODULE = "module"
    TENSORS = "container of tensors"
    NDARRAY = "numpy array"
    CONTAINER = "mutable container"
    ATTRIBUTE = "object attribute"
    GLOBAL = "global"
    MODULE_ATTRIBUTE = "module attribute"


@dataclass(frozen=True)
class CaptureFinding:
    """One AIG301/AIG302 finding about a capture; for AIG302, ``why`` says how the value
    can change (``shared by every call``, ``which 'set_k' rebinds``)."""

    code: str
    capture: Capture
    kind: Kind
    why: str = ""

    @property
    def message(self) -> ReadsCapturedTensor[int] | ReadsChangingState[int]:
        """The checker's message type for the same mistake, worded from what was seen."""
        name, where = self.capture.name, self.capture.where
        if self.code == "AIG301":
            return ReadsCapturedTensor(None, self.kind.value, name, where, saw=describe(self.capture.value))
        return ReadsChangingState(None, self.kind.value, name, where, self.why)

    @property
    def detail(self) -> str:
        return self.message.text()


def code_of(fn: object) -> types.FunctionType | None:
    """The Python function whose body runs when ``fn`` is called, if there is one."""
    target = fn.__func__ if isinstance(fn, types.MethodType) else fn
    return target if isinstance(target, types.FunctionType) else None


def read_names(code: types.CodeType) -> set[str]:
    """Global and attribute names the code reads, nested code objects (lambdas, comprehensions) included."""
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= read_names(const)
    return names


def captures(fn: object) -> list[Capture]:
    """Every captured value of ``fn``, plus the attributes it reads of captured objects and modules."""
    func = code_of(fn)
    if func is None:
        return []
    try:
        found, read = _captured(func)
    except Exception:  # noqa: BLE001 - a namespace whose own code fails: nothing known
        return []
    owners = list(found)
    if isinstance(fn, types.MethodType) and not isinstance(fn.__self__, type):
        code = func.__code__
        owners.append(Capture(code.co_varnames[0] if code.co_argcount else "self", Origin.INSTANCE, fn.__self__))
    # A module read as `config.X` is among the globals; its attributes are followed like an object's.
    for owner in owners:
        found += contained.findings(_attributes(owner, read, ATTRIBUTE_DEPTH))
    return found


def _captured(func: types.FunctionType) -> tuple[list[Capture], set[str]]:
    """What ``func`` reads directly (cells, globals, defaults), and the names its code reads."""
    found: list[Capture] = []
    closure = inspect.getclosurevars(func)
    found += [Capture(name, Origin.CELL, value) for name, value in closure.nonlocals.items()]
    found += [Capture(name, Origin.GLOBAL, value) for name, value in closure.globals.items()]
    code = func.__code__
    read = read_names(code)
    # getclosurevars looks at the function's own code only; lambdas and comprehensions
    # inside it read globals too (the body of a `torch.vmap(lambda row: row * W)`).
    nested = sorted(n for n in read - set(code.co_names) - closure.globals.keys() if n in func.__globals__)
    found += [Capture(name, Origin.GLOBAL, func.__globals__[name]) for name in nested]
    positional = code.co_varnames[: code.co_argcount]
    defaults = func.__defaults__ or ()
    for name, value in zip(positional[len(positional) - len(defaults) :], defaults, strict=True):
        found.append(Capture(name, Origin.DEFAULT, value))
    found += [Capture(name, Origin.KWDEFAULT, value) for name, value in (func.__kwdefaults__ or {}).items()]
    return found, read


def _examined(value: object) -> bool:
    """Objects whose attributes are the user's state: user objects, modules and user modules."""
    if isinstance(value, types.ModuleType):
        return value.__name__.partition(".")[0] not in LIBRARY_ROOTS
    if isinstance(value, (type, types.FunctionType, types.BuiltinFunctionType, types.MethodType, torch.Tensor)):
        return False
    module = contained.module_of(type(value)).partition(".")[0]
    return isinstance(value, torch.nn.Module) or module not in LIBRARY_ROOTS


def _members(value: object, read: set[str]) -> Iterator[tuple[str, object]]:
    """The attributes of ``value`` the code may read, without running a getter."""
    held: dict[str, Any] = {}
    if isinstance(value, torch.nn.Module):
        held = {**value._parameters, **value._buffers, **value._modules}
        for name in sorted(read & held.keys()):
            if held[name] is not None:
                yield name, held[name]
    for name in sorted(read):
        if name.startswith("__") or name in held:
            continue
        try:
            member = inspect.getattr_static(value, name)
        except AttributeError:
            continue
        if isinstance(member, (staticmethod, classmethod, property, types.FunctionType)) or hasattr(
            type(member), "__get__"
        ):
            continue  # methods and descriptors: code, not state
        yield name, member


def _attributes(owner: Capture, read: set[str], depth: int) -> Iterator[Capture]:
    if depth <= 0 or not _examined(owner.value):
        return
    for name, member in _members(owner.value, read):
        capture = Capture(f"{owner.name}.{name}", Origin.ATTRIBUTE, member, owner)
        yield capture
        yield from _attributes(capture, read, depth - 1)


def _has_tensor(value: list[object] | tuple[object, ...] | dict[object, object]) -> bool:
    items = value.values() if isinstance(value, dict) else value
    return any(isinstance(item, torch.Tensor) for item in items)


def judge(fn: object) -> list[CaptureFinding]:
    """AIG301 and AIG302 findings for what ``fn`` captures."""
    func = code_of(fn)
    findings: list[CaptureFinding] = []
    found = captures(fn)
    examined = {c.owner.name for c in found if c.owner is not None}
    for capture in found:
        try:
            finding = _judged(capture, func, examined)
        except Exception:  # noqa: BLE001 - a captured value whose own code fails: left unjudged
            continue
        if finding is not None:
            findings.append(finding)
    return findings


def _judged(capture: Capture, func: types.FunctionType | None, examined: set[str]) -> CaptureFinding | None:
    """The AIG301/AIG302 finding about one capture, if any."""
    value, owner = capture.value, capture.owner
    if isinstance(value, torch.Tensor):
        kind = Kind.PARAMETER if isinstance(value, torch.nn.Parameter) else Kind.TENSOR
        return CaptureFinding("AIG301", capture, kind)
    if isinstance(value, torch.nn.Module):
        # A module whose read attributes were reported on their own is not reported twice.
        if capture.name not in examined or owner is not None:
            return CaptureFinding("AIG301", capture, Kind.MODULE)
    elif isinstance(value, (list, tuple, dict)) and _has_tensor(value):
        return CaptureFinding("AIG301", capture, Kind.TENSORS)
    elif contained.type_name(type(value)) == "numpy.ndarray":
        return CaptureFinding("AIG302", capture, Kind.NDARRAY, "which can change in place")
    elif isinstance(value, (list, dict, set, bytearray)):
        return CaptureFinding("AIG302", capture, Kind.CONTAINER, "shared by every call")
    elif owner is not None and isinstance(owner.value, types.ModuleType):
        if isinstance(value, _SCALARS) and func is not None:
            rebinders = _module_rebinders(owner.value, capture.name.rpartition(".")[2], func.__globals__)
            if rebinders:
                why = f"which {', '.join(rebinders)} rebinds"
                return CaptureFinding("AIG302", capture, Kind.MODULE_ATTRIBUTE, why)
    elif owner is not None and isinstance(value, _SCALARS):
        return CaptureFinding("AIG302", capture, Kind.ATTRIBUTE, "which can be reassigned")
    elif capture.origin is Origin.GLOBAL and func is not None and isinstance(value, _SCALARS):
        rebinders = _rebinders(func.__globals__, capture.name)
        if rebinders:
            why = f"which {', '.join(rebinders)} rebinds with a global statement"
            return CaptureFinding("AIG302", capture, Kind.GLOBAL, why)
    return None


# -- who rebinds a global or a module attribute -----------------------------------------------


def _functions(namespace: dict[str, Any]) -> Iterator[types.FunctionType]:
    """Functions and methods defined in the module whose globals are ``namespace``."""
    module = namespace.get("__name__")
    for value in list(namespace.values()):
        # type() and issubclass, not isinstance: no __class__ of a module-level object runs.
        if type(value) is types.FunctionType and value.__module__ == module:
            yield value
        elif issubclass(type(value), type) and contained.module_of(value) == module:
            yield from (v for v in vars(value).values() if isinstance(v, types.FunctionType))


def _rebinders(namespace: dict[str, Any], name: str) -> list[str]:
    """Functions of ``namespace``'s module that assign the global ``name``."""
    return [f"'{f.__qualname__}'" for f in _functions(namespace) if _stores(f.__code__, name, None)]


def _module_rebinders(module: types.ModuleType, name: str, registering: dict[str, Any]) -> list[str]:
    """Who rebinds ``module.name``: a ``global name`` in a function of ``module``, or
    ``alias.name = ...`` in a function of the registering module (``alias`` bound to ``module``)."""
    found = [f"'{module.__name__}.{q[1:-1]}'" for q in _rebinders(vars(module), name)]
    aliases = {alias for alias, value in registering.items() if value is module}
    if aliases and registering is not vars(module):
        found += [f"'{f.__qualname__}'" for f in _functions(registering) if _stores(f.__code__, name, aliases)]
    return found


def _stores(code: types.CodeType, name: str, owners: set[str] | None) -> bool:
    """Whether ``code`` stores the global ``name`` (``owners`` None) or the attribute ``name``
    of an object loaded under one of the ``owners`` names."""
    if name in code.co_names:
        previous: dis.Instruction | None = None
        for instruction in dis.get_instructions(code):
            if owners is None and instruction.opname == "STORE_GLOBAL" and instruction.argval == name:
                return True
            if (
                owners is not None
                and instruction.opname == "STORE_ATTR"
                and instruction.argval == name
                and previous is not None
                and previous.opname.startswith("LOAD_")
                and previous.argval in owners
            ):
                return True
            if instruction.opname not in ("CACHE", "EXTENDED_ARG"):
                previous = instruction
    return any(_stores(c, name, owners) for c in code.co_consts if isinstance(c, types.CodeType))


def named_tensors(fn: Callable[..., Any]) -> list[tuple[str, object]]:
    """``(name, value)`` of what ``fn`` captures, for naming foreign tensors in messages."""
    return [(c.name, c.value) for c in captures(fn)]
