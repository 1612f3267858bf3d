"""The part of an installed module that questions about some of its names can reach.

A project built on a package asks the package's modules about a few names each: is
``ModelMixin`` an ``nn.Module``, is ``maybe_allow_in_graph`` a registrar. Their answers rest
on the statements that bind those names and on what those statements name in turn; the
other classes and defs of the module (most of diffusers' ``attention.py``, thousands of
lines) cannot reach them. So an installed module is parsed with libcst as an excerpt: every
top-level statement but classes and defs kept as it is, and of the top-level classes and
defs those whose name the asked names or the kept text spell (a word anywhere: a call, a
base, an annotation in a string, ``__all__``), to a fixed point. Each class or def left out
is replaced by blank lines, so what remains keeps its lines and columns.

An excerpt that would keep most of the module (:data:`WHOLE_ENOUGH`) is not made: the
whole module is parsed, and serves every later question without a parse again.

Generous by construction: a class or def stays unless no kept line spells its name, so the
excerpt binds and defines, for every kept name, what the whole module does.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Set

#: A line and its ending, as CPython counts lines (``\n``, ``\r\n``, ``\r``).
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")
_WORD = re.compile(r"[A-Za-z_]\w*")
_DEFINITIONS = (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)
#: A method, as CPython's tree has it.
Method = ast.FunctionDef | ast.AsyncFunctionDef
#: The share of the module's characters above which an excerpt is not worth making.
WHOLE_ENOUGH = 0.75


def excerpt(text: str, tree: ast.Module, names: Set[str]) -> str | None:
    """``text`` (``tree`` is CPython's tree of it) with each top-level class and def that
    neither ``names`` nor the kept text spell blanked out, its lines kept as empty lines;
    None where that would keep more than :data:`WHOLE_ENOUGH` of it (take the whole)."""
    lines = _LINE.findall(text)
    spans: dict[str, list[tuple[int, int]]] = {}
    for statement in tree.body:
        if isinstance(statement, _DEFINITIONS):
            start = min([statement.lineno, *(d.lineno for d in statement.decorator_list)]) - 1
            end = min(statement.end_lineno or statement.lineno, len(lines))
            spans.setdefault(statement.name, []).append((start, end))
    if not spans:
        return None
    inside = [False] * len(lines)
    for name_spans in spans.values():
        for start, end in name_spans:
            inside[start:end] = [True] * (end - start)
    outside = "".join(line for line, held in zip(lines, inside, strict=True) if not held)
    wanted = set(names) | set(_WORD.findall(outside))
    kept: set[str] = set()
    pending = [name for name in spans if name in wanted]
    while pending:
        name = pending.pop()
        if name in kept:
            continue
        kept.add(name)
        for start, end in spans[name]:
            words = set(_WORD.findall("".join(lines[start:end])))
            pending += [word for word in words if word in spans and word not in kept]
    blanked = list(lines)
    for name, name_spans in spans.items():
        if name not in kept:
            for start, end in name_spans:
                for index in range(start, end):
                    blanked[index] = _ending(lines[index])
    made = "".join(blanked)
    return made if len(made) <= WHOLE_ENOUGH * len(text) else None


def _ending(line: str) -> str:
    return line[len(line.rstrip("\r\n")) :]


def without_method_bodies(
    text: str, tree: ast.Module, keep: Set[str], kept: Set[tuple[str, str]] = frozenset()
) -> tuple[str, dict[str, dict[str, list[Method]]]]:
    """``text`` (or an excerpt of it: ``tree`` is CPython's tree of the text it was made
    from) with the body of each method of a top-level class replaced by ``...`` on its
    first line and blank lines after it (lines kept), save where the body is on the ``def``
    line, holds one of ``keep`` (a registrar's name, a marker, ``global``: what a module's
    own facts read in a body) or is one of ``kept`` (class, method); and, per class, per
    method name, the definitions whose bodies are left out (:func:`attributes_set` says what
    they may set). A class's kind rests on its header and the names its body binds; a body
    is read only when its method, or an attribute it may set, is asked
    (:class:`checker.facts.kinds.classes.LeftOutBodies`)."""
    lines = _LINE.findall(text)
    left: dict[str, dict[str, list[Method]]] = {}
    for statement in tree.body:
        if not isinstance(statement, ast.ClassDef):
            continue
        for member in statement.body:
            if not isinstance(member, (ast.FunctionDef, ast.AsyncFunctionDef)) or (statement.name, member.name) in kept:
                continue
            first, end = member.body[0].lineno - 1, min(member.end_lineno or member.lineno, len(lines))
            if first <= member.lineno - 1 or first >= len(lines) or not lines[first].strip():
                continue  # (on the ``def`` line, or left out of the excerpt already)
            body = "".join(lines[first:end])
            indent = lines[first][: member.body[0].col_offset]
            if indent.strip() or any(word in body for word in keep):
                continue
            left.setdefault(statement.name, {}).setdefault(member.name, []).append(member)
            for index in range(first, end):
                lines[index] = _ending(lines[index])
            lines[first] = f"{indent}...{_ending(lines[first]) or chr(10)}"
    return "".join(lines), left


def attributes_set(function: Method) -> set[str]:
    """The attributes a function's body may set: stored to (of any object), or named by a
    ``register_...`` call's first argument."""
    found: set[str] = set()
    for node in ast.walk(function):
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            found.add(node.attr)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.args:
            first = node.args[0]
            if node.func.attr.startswith("register_") and isinstance(first, ast.Constant):
                found.add(str(first.value))
    return found
