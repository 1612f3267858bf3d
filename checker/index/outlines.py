"""What CPython's parser tells about a module, before (and often instead of) libcst.

The project index asks other modules small questions: can this module bind a
registrar, is this name only a class, does an assignment bind it, where does it
re-export it from, does a registration plausibly apply to it. CPython's parser answers
them at a tenth of libcst's cost, so a module is parsed with libcst only when its
outline says the answer may matter.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Generic, TypeVar

from checker.index.python_trees import PythonTrees
from checker.reading.exhaustive import exhaustive
from checker.reading.forms import names_registrar
from checker.reading.forwarding import reexports_only, wrappers_unless
from checker.reading.mentions import (
    global_names,
    lines_spelling,
    names_the_api,
    nodes_on_lines,
    non_registrar_names,
    registered_arguments,
    top_level,
    value_names,
)
from checker.reading.packages import candidates, real_path
from checker.reading.source import PREFILTER, Decoded, Gate, Prefilter, Unanalysable, decode, python_gate, read_source

T = TypeVar("T")
#: A file's (mtime_ns, size): when it changes, what was read from the file is stale.
Stamp = tuple[int, int]
#: How many re-exports deep an imported name is followed to the module that binds it.
_MAX_REEXPORTS = 8


@dataclass(frozen=True)
class Outline:
    """``registers``: its code can name a registrar; ``not_registrars``: top-level names
    that cannot be one (only classes, or defs that forward their parameters to no registrar,
    bind them); ``wrappers_unless``: defs that are none unless one of the imported names they
    forward a parameter to is (:func:`checker.reading.forwarding.wrappers_unless`, which the
    index asks of those names' modules); ``reexports``: names bound by an import alone, which
    are registrars only where their module binds one; ``values``: names an assignment binds;
    ``registered``: names a registration of the API plausibly applies to (decorated with it,
    passed to it)."""

    registers: bool = False
    #: CPython's parser read it and found nothing that would crash libcst.
    safe: bool = False
    not_registrars: frozenset[str] = frozenset()
    wrappers_unless: Mapping[str, frozenset[str]] = field(default_factory=dict, hash=False)
    reexports: frozenset[str] = frozenset()
    values: frozenset[str] = frozenset()
    registered: frozenset[str] = frozenset()


#: The outline of a module that cannot be read or parsed.
EMPTY = Outline()


def outline(path: Path, gate_of: Callable[[str], Gate] | None = None) -> Outline:
    """The outline of the module at ``path``; ``gate_of``: CPython's verdict on a text (one kept)."""
    try:
        data = read_source(path)
        if data is None:
            return EMPTY  # over the analysis limit: never parsed
        decoded = decode(data)  # as the full tier decodes it: a bad byte in a comment is no stop
    except OSError:
        return EMPTY
    if isinstance(decoded, Unanalysable):
        return EMPTY
    text = decoded.text
    gate = (gate_of or python_gate)(text)
    if gate.refused is not None:
        return EMPTY
    mentions = PREFILTER in data
    if gate.tree is None:  # newer syntax than this interpreter's: libcst decides
        return Outline(registers=mentions, safe=True)
    tree = gate.tree
    # Only the lines that spell ``global`` or the API are walked; the rest reads the top level.
    # (Lines spelling "global" inside a longer name are walked too: only global statements count.)
    rebound = {name for node in nodes_on_lines(tree, lines_spelling(text, ["global"])) for name in global_names(node)}
    api = False
    passed: set[str] = set()
    for node in nodes_on_lines(tree, lines_spelling(text, [PREFILTER.decode()]) if mentions else []):
        api = api or names_the_api(node)
        if isinstance(node, ast.Call) and _names_the_api(node.func):
            passed.update(argument.id for argument in registered_arguments(node) if isinstance(argument, ast.Name))
    # Asked only of a module that can register: a walk of every def's body otherwise.
    unless = wrappers_unless(tree, rebound) if api else {}
    return Outline(
        registers=api,
        safe=True,
        not_registrars=non_registrar_names(tree, rebound) | {name for name, names in unless.items() if not names}
        if api
        else frozenset(),
        wrappers_unless={name: names for name, names in unless.items() if names},
        reexports=reexports_only(tree, rebound) if api else frozenset(),
        values=value_names(tree, rebound),
        registered=frozenset(_decorated(tree)) | passed if mentions else frozenset(),
    )


def imports(path: Path, gate_of: Callable[[str], Gate] | None = None) -> Mapping[str, str]:
    """The module's top-level ``from m import x [as y]`` (y -> ``m.x``): what it re-exports."""
    try:
        data = read_source(path)
    except OSError:
        return {}
    decoded = decode(data) if data is not None else None
    tree = (gate_of or python_gate)(decoded.text).tree if isinstance(decoded, Decoded) else None
    return {} if tree is None else dict(_reexports(tree))


class Outlines:
    """Outlines (and, apart, top-level imports: a parse without a walk) kept per file while
    it is unchanged (a bounded number); ``trees``: CPython's verdicts, one parse of a text
    serving its outline, its imports and whoever else shares them (the libcst parse's gate);
    none kept when not given."""

    def __init__(self, limit: int, trees: PythonTrees | None = None) -> None:
        self.limit = limit
        self.trees = trees if trees is not None else PythonTrees(characters=0)
        self._kept = PerFile(limit, lambda path: outline(path, self.trees.gate), EMPTY)
        self._imports: PerFile[Mapping[str, str]] = PerFile(limit, lambda path: imports(path, self.trees.gate), {})
        self._mentions = PerFile(limit * 16, _mentions_api, False)

    def imports(self, path: Path) -> Mapping[str, str]:
        return self._imports.get(path)

    def mentions_api(self, path: Path) -> bool:
        """Whether the file's bytes mention the API at all (no parse: most files do not)."""
        return self._mentions.get(path)

    def of(self, path: Path) -> Outline:
        return self._kept.get(path)

    def defined_at(self, importer: str, qualified: str, depth: int = 0) -> tuple[Path, str] | None:
        """The module file and name an imported name is bound by, re-exports followed;
        None outside the project or in a cycle."""
        if depth > _MAX_REEXPORTS:
            return None
        for path, attribute in candidates(Path(importer), qualified):
            # Only an import can re-export it: a module whose text imports no such name binds it itself.
            further = self.imports(path).get(attribute) if self._imports_name(path, attribute) else None
            if further is None:
                return real_path(path), attribute
            return self.defined_at(str(path), further, depth + 1)
        return None

    def reexported(self, path: Path, name: str) -> tuple[Path, str] | None:
        """The module file and name the top level of ``path`` imports ``name`` from (one
        step of :meth:`defined_at`), or None where no import binds it."""
        further = self.imports(path).get(name) if self._imports_name(path, name) else None
        if further is None:
            return None
        found = candidates(path, further)
        return (real_path(found[0][0]), found[0][1]) if found else None

    def _imports_name(self, path: Path, name: str) -> bool:
        """Whether an import in the file's text may bind ``name`` (generous: no parse; yes
        under the exhaustive switch, and the module's imports say)."""
        if exhaustive():
            return True
        try:
            data = read_source(path)
        except OSError:
            return False
        return data is not None and name.encode() in data and Prefilter(imported=(name,)).imports(data)

    def stamp(self, path: Path) -> Stamp | None:
        return self._kept.stamp(path)


class PerFile(Generic[T]):
    """``answer(file)`` kept per file while the file's stamp is unchanged, at most ``limit``
    files (all are let go when it is reached); ``missing``: the answer for a file that
    cannot be read (not kept)."""

    def __init__(self, limit: int, answer: Callable[[Path], T], missing: T) -> None:
        self.limit = limit
        self.answer = answer
        self.missing = missing
        self._kept: dict[Path, tuple[Stamp, T]] = {}

    def get(self, path: Path) -> T:
        key = real_path(path)
        stamp = file_stamp(key)
        if stamp is None:
            return self.missing
        cached = self._kept.get(key)
        if cached is None or cached[0] != stamp:
            if len(self._kept) >= self.limit:
                self._kept.clear()
            try:
                cached = self._kept[key] = (stamp, self.answer(key))
            except OSError:
                return self.missing
        return cached[1]

    def stamp(self, path: Path) -> Stamp | None:
        cached = self._kept.get(real_path(path))
        return cached[0] if cached is not None else None


def _mentions_api(path: Path) -> bool:
    data = read_source(path)  # (OSError: a file that cannot be read mentions nothing)
    return data is not None and PREFILTER in data


def file_stamp(path: Path) -> Stamp | None:
    """The file's modification time and size (None when it cannot be read): what tells
    that a file kept from earlier may have changed."""
    try:
        status = path.stat()
    except OSError:
        return None
    return status.st_mtime_ns, status.st_size


def _reexports(tree: ast.Module) -> Iterator[tuple[str, str]]:
    for statement in top_level(tree.body):
        if isinstance(statement, ast.ImportFrom):
            module = "." * statement.level + (statement.module or "")
            for alias in statement.names:
                if alias.name != "*":
                    joined = f"{module}{alias.name}" if module.endswith(".") else f"{module}.{alias.name}"
                    yield alias.asname or alias.name, joined


def _names_the_api(expr: ast.expr) -> bool:
    node = expr.func if isinstance(expr, ast.Call) else expr
    text = node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(node, ast.Name) else ""
    return names_registrar(text)


def _decorated(tree: ast.Module) -> Iterator[str]:
    """Top-level defs and classes decorated with the API."""
    for statement in top_level(tree.body):
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            if any(_names_the_api(decorator) for decorator in statement.decorator_list):
                yield statement.name
