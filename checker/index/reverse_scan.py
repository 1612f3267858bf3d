"""Which files of a project may register the defs of a given module, found without
analysing them: CPython's parser, and the imports and calls of each file.

A file can register ``kernels.scaled`` only by calling a registrar with it:
``allow_in_graph(scaled)`` after ``from .kernels import scaled``, or
``maybe_allow_in_graph(kernels.scaled)`` after ``from . import kernels``, or a wrapper the
file defines. A file with no such call is not analysed at all; the few that have one are
checked in full, which settles whether the call is a registration.
"""

from __future__ import annotations

import ast
import re
from bisect import bisect_right
from collections.abc import Iterator, Set
from dataclasses import dataclass, field
from pathlib import Path

from checker.index.bound_values import BoundValues
from checker.index.installed_registrars import imported_registrars
from checker.reading.forms import REGISTERED_KEYWORD, REGISTRAR_WORD, names_registrar
from checker.reading.mentions import dotted_name, registered_arguments
from checker.reading.packages import module_file
from checker.reading.source import read_source

_WORD = re.escape(REGISTRAR_WORD.encode())
#: Where the project's functions are registered, at any indentation (a top-level ``if`` or
#: ``try`` holds registrations too): ``allow_in_graph(f)``, ``allow_in_graph(fn=f)``,
#: ``f = allow_in_graph(f)``, ``@allow_in_graph`` on a def. Groups: the registrar, the name.
_CALLED = re.compile(
    rb"(?m)^[ \t\f]*(?:[\w.]+[ \t]*=[ \t]*)?([\w.]*"
    + _WORD
    + rb"\w*)[ \t]*\([ \t]*(?:"
    + REGISTERED_KEYWORD.encode()
    + rb"[ \t]*=[ \t]*)?([A-Za-z_]\w*)[ \t]*[,)]"
)
#: ``allow_in_graph([f, g])`` or ``allow_in_graph((f, g))`` on one line: the registrar,
#: and the elements (those that are names are registered).
_LISTED = re.compile(
    rb"(?m)^[ \t\f]*(?:[\w.]+[ \t]*=[ \t]*)?([\w.]*"
    + _WORD
    + rb"\w*)[ \t]*\([ \t]*(?:"
    + REGISTERED_KEYWORD.encode()
    + rb"[ \t]*=[ \t]*)?[\[(]([^\[\]()\n]*)[\])][ \t]*[,)]"
)
_NAME = re.compile(rb"[A-Za-z_]\w*")
_DECORATED = re.compile(
    rb"(?m)^[ \t\f]*@([\w.]*"
    + _WORD
    + rb"[\w.]*)(?:\([^)\n]*\))?[ \t]*\r?\n(?:[ \t]*@[^\n]*\n)*[ \t]*(?:async[ \t]+)?def[ \t]+(\w+)"
)


@dataclass(frozen=True)
class TextRegistrations:
    """The functions a file's text registers (:func:`registered_in`); ``foreign``: some of
    them are not defined there (imported, most likely), so its check will likely hand
    registrations to the files that define them."""

    names: set[str] = field(default_factory=set)
    foreign: bool = False
    #: The names it may register with through an installed package (``from aig_helpers import
    #: register``, :func:`checker.index.installed_registrars.imported_registrars`), which the
    #: text tier lets through as it does the project's aliases.
    registrars: frozenset[str] = frozenset()


def text_registrations(path: str) -> TextRegistrations:
    """What the file's text registers at its top level: a cheap list of the functions
    the project registers, whose calls in other files are judged."""
    try:
        data = read_source(path)
    except OSError:
        return TextRegistrations()
    if data is None:  # too large: reported when checked
        return TextRegistrations()
    names = registered_in(data)
    return TextRegistrations(names, bool(names) and not names <= _defined(data), imported_registrars(path, data))


#: A ``def`` or ``class`` statement, and the name it binds.
_DEFINED = re.compile(rb"(?m)^[ \t\f]*(?:async[ \t]+)?(?:def|class)[ \t]+(\w+)")


def _defined(data: bytes) -> set[str]:
    """The names the text's ``def`` and ``class`` statements bind: one search of the text,
    however many names it registers (a generated file registers thousands)."""
    return {name.decode() for name in _DEFINED.findall(data)}


def registered_in(data: bytes) -> set[str]:
    """The functions the text registers: ``allow_in_graph(f)``, ``@allow_in_graph`` on a def,
    wherever the registrar's name can name the API (:func:`checker.reading.forms.names_registrar`).

    An indented registration counts where its top-level statement is a block of the module
    (``if``, ``try``, ``with``): there it registers a module-level function. In the body of a
    top-level def or class it registers a parameter, a local or a method
    (``def deco(cls): allow_in_graph(cls)``), which no other file calls: counting it would
    have every file that calls a ``cls`` parsed for nothing.
    """
    if REGISTRAR_WORD.encode() not in data:
        return set()
    starts: list[int] | None = None
    found = set()
    for match, registrar, names in _registrations(data):
        if not names_registrar(registrar.rpartition(".")[2]):
            continue
        if match.group(0)[:1] in (b" ", b"\t"):
            starts = [line.start() for line in _TOP_STATEMENT.finditer(data)] if starts is None else starts
            enclosing = (
                starts[bisect_right(starts, match.start()) - 1] if starts and starts[0] < match.start() else None
            )
            if enclosing is not None and _DEFINING.match(data, enclosing):
                continue
        found.update(names)
    # CapWords names are classes (PEP 8): constructing a registered class is not a call judged
    # elsewhere, and their importers would only be analysed for nothing. A function named
    # so is still found, by the pass after the first (``Links.registered``).
    return {name for name in found if not name[:1].isupper()}


def _registrations(data: bytes) -> Iterator[tuple[re.Match[bytes], str, list[str]]]:
    """Each textual registration: its match, the registrar as spelled, the names it registers."""
    starts = _lines_spelling_the_word(data)
    for match in (*_matches(_CALLED, data, starts), *_matches(_DECORATED, data, starts)):
        registrar, name = (group.decode() for group in match.groups())
        yield match, registrar, [name]
    for match in _matches(_LISTED, data, starts):
        elements = (element.strip() for element in match.group(2).split(b","))
        names = [element.decode() for element in elements if _NAME.fullmatch(element)]
        yield match, match.group(1).decode(), names


def _lines_spelling_the_word(data: bytes) -> list[int]:
    """Where each line that spells the registrar word starts (each once, in order)."""
    word = REGISTRAR_WORD.encode()
    starts: list[int] = []
    at = data.find(word)
    while at != -1:
        starts.append(data.rfind(b"\n", 0, at) + 1)
        line_end = data.find(b"\n", at)
        at = data.find(word, line_end) if line_end != -1 else -1
    return starts


def _matches(pattern: re.Pattern[bytes], data: bytes, starts: list[int]) -> Iterator[re.Match[bytes]]:
    """The matches ``pattern.finditer(data)`` gives, for a pattern whose matches begin at a
    line that spells the registrar word: tried at those lines alone (a search from every line
    of a long file cost 3 ms a file), none overlapping the one before."""
    end = 0
    for start in starts:
        if start < end:
            continue
        match = pattern.match(data, start)
        if match is not None:
            end = match.end()
            yield match


#: A line that starts a top-level statement (not a blank, a comment or a closing bracket).
_TOP_STATEMENT = re.compile(rb"(?m)^[^ \t\r\n#)\]}]")
#: A top-level statement whose indented body is a function's or a class's.
_DEFINING = re.compile(rb"(?:async[ \t]+)?(?:def|class)\b")


def may_register_from(tree: ast.Module, path: Path, targets: Set[Path], registrars: tuple[str, ...]) -> bool:
    """Whether the file at ``path`` calls, with a top-level name of one of ``targets`` (real
    paths), something whose name contains one of ``registrars`` or a function the file
    defines. One walk of the tree, however many files are named alone."""
    names: set[str] = set()  # bound to a name of a target
    modules: dict[str, str] = {}  # local name -> dotted import of a module (the target or a package above it)
    defined: set[str] = set()
    calls: list[ast.Call] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            calls.append(node)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            defined.add(node.name)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                head = alias.name.split(".")[0]
                modules[alias.asname or head] = alias.name if alias.asname else head
        elif isinstance(node, ast.ImportFrom):
            module = "." * node.level + (node.module or "")
            from_target = bool(node.module or node.level) and _is(path, module, targets)
            for alias in node.names:
                bound = alias.asname or alias.name
                if from_target:
                    names.add(bound)
                else:
                    modules[bound] = f"{module}.{alias.name}" if not module.endswith(".") else f"{module}{alias.name}"
    values = BoundValues(tree)  # ``for op in (f, g): allow_in_graph(op)`` registers f and g
    for call in calls:
        if not _registrar_like(call.func, registrars, defined):
            continue
        for written in registered_arguments(call):
            for argument in (written, *values.through(written)):
                if isinstance(argument, ast.Name) and argument.id in names:
                    return True
                if isinstance(argument, ast.Attribute):
                    dotted = dotted_name(argument.value, modules)
                    if dotted is not None and _is(path, dotted, targets):
                        return True
    return False


def _registrar_like(func: ast.expr, registrars: tuple[str, ...], defined: set[str]) -> bool:
    name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
    return name in defined or any(registrar in name for registrar in registrars)


def _is(path: Path, dotted: str, targets: Set[Path]) -> bool:
    found = module_file(path, dotted)
    return found is not None and found.resolve() in targets
