"""Run a small program against stand-ins for every library it imports, and say what it did.

For the metamorphic tests: a rewritten program must run like the original. :func:`run`
imports modules of a :class:`~rewrites.Program` (written to a temporary folder) with a
stand-in for torch, numpy and any other library, and for modules of the package that
are not there: attributes, calls, operators, iteration and subclassing of a stand-in
all work, and a call with one callable returns it, as ``allow_in_graph`` does. Names
that nothing binds (``load_weights()`` in a rule example) are stand-ins too. What comes
back (:class:`Ran`): which modules failed to import and with what, every call of a
stand-in with a Python callable (the registrations, by the path they are spelt as), and
what each module binds, as shapes that a rename or a move does not change.

Nothing of the real environment leaks in or out: ``sys.modules``, ``sys.path``,
``sys.meta_path`` and ``builtins`` are restored after each run.
"""

from __future__ import annotations

import builtins
import contextlib
import importlib
import importlib.abc
import importlib.machinery
import os
import re
import symtable
import sys
import tempfile
import types
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NamedTuple

from rewrites import PACKAGE, Program
from rewrites.program import SITE_PACKAGES, module_name

_CALLS: list[tuple[str, tuple[object, ...]]] = []
#: Decorators that make an object of their own from the function (with ``register_fake``).
_MAKE_OBJECTS = ("leaf_function", "custom_op()")


class _Base:
    """What a class deriving from a stand-in (``nn.Module``, ``autograd.Function``) derives from."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        pass

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return _Stub(f"{type(self).__name__}.{name}")


class _Stub:
    def __init__(self, path: str) -> None:
        object.__setattr__(self, "_path", path)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return _Stub(f"{self._path}.{name}")

    def __setattr__(self, name: str, value: object) -> None:
        pass

    def __call__(self, *args: object, **kwargs: object) -> Any:
        callables = [shape(a) for a in _flat([*args, *kwargs.values()]) if callable(a) and not isinstance(a, _Stub)]
        if callables:
            _CALLS.append((self._path, tuple(callables)))
        if len(args) == 1 and not kwargs and callable(args[0]) and not self._path.endswith(_MAKE_OBJECTS):
            return args[0]  # as allow_in_graph, disable and nonstrict_trace do
        return _Stub(f"{self._path}()")

    def __mro_entries__(self, bases: tuple[object, ...]) -> tuple[type, ...]:
        return (_Base,)

    def __iter__(self) -> Iterator[object]:
        return iter(())

    def __bool__(self) -> bool:
        return False

    def __getitem__(self, key: object) -> Any:
        return _Stub(f"{self._path}[]")

    def __setitem__(self, key: object, value: object) -> None:
        pass

    def __index__(self) -> int:
        return 0

    __int__ = __index__

    def __float__(self) -> float:
        return 0.0

    def __hash__(self) -> int:
        return id(self)


def _operator(self: _Stub, *args: object) -> _Stub:
    return _Stub("operator")


for _name in (
    "add",
    "sub",
    "mul",
    "truediv",
    "floordiv",
    "mod",
    "pow",
    "matmul",
    "and",
    "or",
    "xor",
    "lshift",
    "rshift",
):
    setattr(_Stub, f"__{_name}__", _operator)
    setattr(_Stub, f"__r{_name}__", _operator)
for _name in ("neg", "pos", "invert", "abs", "lt", "le", "gt", "ge"):
    setattr(_Stub, f"__{_name}__", _operator)


def _flat(values: list[object]) -> Iterator[object]:
    for value in values:
        if isinstance(value, (list, tuple)):
            yield from _flat(list(value))
        else:
            yield value


def shape(obj: object) -> object:
    """What an object is, in terms a rename or a move keeps; None for a stand-in or a module."""
    if isinstance(obj, (_Stub, types.ModuleType)):
        return None
    if isinstance(obj, types.MethodType):
        return ("method", shape(obj.__func__))
    if isinstance(obj, types.FunctionType):
        if not (obj.__module__ or "").startswith(PACKAGE):
            return None  # a library's, as a stand-in is: what a rewrite imports (a helper) is not compared
        return ("function", obj.__code__.co_argcount, obj.__code__.co_varnames)
    if isinstance(obj, type):
        if obj.__module__.startswith(PACKAGE):
            return ("class", tuple(sorted(k for k in vars(obj) if not k.startswith("__"))))
        return ("library class", obj.__name__)
    if type(obj).__module__.startswith(PACKAGE):
        return ("instance", shape(type(obj)))
    return ("value", type(obj).__name__)


class _StubModule(types.ModuleType):
    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return sys.modules.get(f"{self.__name__}.{name}") or _Stub(f"{self.__name__}.{name}")


class _Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Stands in for a library (``libraries``), or for a module of the package that is not
    there (``libraries`` None), but never for one a rewrite writes (``moved``, ``_impl``)."""

    def __init__(self, libraries: frozenset[str] | None) -> None:
        self.libraries = libraries

    def find_spec(self, name: str, path: object = None, target: object = None) -> importlib.machinery.ModuleSpec | None:
        top, _, rest = name.partition(".")
        if self.libraries is None:
            if top != PACKAGE or rest.split(".")[-1].startswith(("moved", "_impl")):
                return None
        elif top not in self.libraries:
            return None
        return importlib.machinery.ModuleSpec(name, self, is_package=True)

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
        return _StubModule(spec.name)

    def exec_module(self, module: types.ModuleType) -> None:
        pass


def _libraries(program: Program) -> frozenset[str]:
    """The top-level modules the program imports that it does not provide itself."""
    names = set()
    for path in program.modules:
        names |= set(re.findall(r"^\s*(?:from|import)\s+([A-Za-z_]\w*)", program.source(path), re.MULTILINE))
    provided = {module_name(path).partition(".")[0] for path in program.modules}
    return frozenset(n for n in names if n not in sys.stdlib_module_names and n not in provided | {PACKAGE})


def _undefined(program: Program) -> set[str]:
    """Names the modules read but nothing binds (``load_weights()`` in an example): stand-ins too."""
    names: set[str] = set()
    for path in program.modules:
        try:
            top = symtable.symtable(program.source(path), path, "exec")
        except SyntaxError:
            continue
        bound = {sym.get_name() for sym in top.get_symbols() if sym.is_assigned() or sym.is_imported()}
        tables = [top]
        while tables:
            table = tables.pop()
            tables += table.get_children()
            for sym in table.get_symbols():
                if sym.is_declared_global() and sym.is_assigned():
                    bound.add(sym.get_name())
                elif sym.is_global() and sym.is_referenced():
                    names.add(sym.get_name())
    return {name for name in names - bound if not hasattr(builtins, name)}


@contextlib.contextmanager
def _isolated(root: Path, libraries: frozenset[str], undefined: set[str]) -> Iterator[None]:
    saved = dict(sys.modules)
    path, meta, bytecode = list(sys.path), list(sys.meta_path), sys.dont_write_bytecode
    for name in list(sys.modules):
        if name.partition(".")[0] in libraries | {PACKAGE}:
            del sys.modules[name]
    # a src layout and installed packages import as they would in a project with its venv
    sys.path[:0] = [str(root), str(root / "src"), str(root / SITE_PACKAGES)]
    sys.meta_path[:0] = [_Finder(libraries)]
    sys.meta_path.append(_Finder(None))
    sys.dont_write_bytecode = True
    # what a program writes at import time (``open("trace.log", "w")``) lands in its own folder
    here = os.getcwd()
    os.chdir(root)
    for name in undefined:
        setattr(builtins, name, _Stub(name))
    _CALLS.clear()
    try:
        yield
    finally:
        os.chdir(here)
        for name in undefined:
            delattr(builtins, name)
        for name in set(sys.modules) - set(saved):
            del sys.modules[name]
        sys.modules.update(saved)
        sys.path[:], sys.meta_path[:], sys.dont_write_bytecode = path, meta, bytecode
        for folder in (root, root / "src", root / SITE_PACKAGES):
            sys.path_importer_cache.pop(str(folder), None)


class Ran(NamedTuple):
    errors: dict[str, str]
    calls: Counter[tuple[str, tuple[object, ...]]]
    namespaces: dict[str, Counter[object]]


def run(program: Program, modules: list[str]) -> Ran:
    """Import ``modules`` (paths of ``program``, as :func:`~rewrites.program.module_name` names
    them) in order, against stand-ins; errors and namespaces are keyed by module name."""
    errors, namespaces = {}, {}
    with tempfile.TemporaryDirectory() as folder, _isolated(Path(folder), _libraries(program), _undefined(program)):
        program.write(Path(folder))
        importlib.invalidate_caches()
        for path in modules:
            name = module_name(path)
            try:
                module = importlib.import_module(name)
            except Exception as error:  # noqa: BLE001 - the original may fail too; both must fail alike
                errors[name] = type(error).__name__
                continue
            namespaces[name] = Counter(
                s for k, v in vars(module).items() if not k.startswith("__") and (s := shape(v)) is not None
            )
        calls = Counter(_CALLS)
    return Ran(errors, calls, namespaces)
