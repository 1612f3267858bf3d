"""Whether a file's code, not only its text, can register something.

The text pre-filter lets through every file that mentions ``allow_in_graph`` anywhere,
comments and docstrings included; in torch that is 16 files, of which 9 only talk
about the API. CPython's parser has already read each of those files (the gate in
``checker/source.py``), so its tree answers the question for a fraction of what
libcst's parse and the analysis would cost: a file can register only if an
identifier in it names the API (``allow_in_graph``, ``torch.compiler.allow_in_graph``,
``maybe_allow_in_graph``), one of the project's aliases, or ``getattr`` fetches the
API by name. ``disallow_in_graph`` alone registers nothing.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator

from checker.source import Prefilter

_API_IDENTIFIER = re.compile(r"(?<!dis)allow_in_graph")


def may_register(tree: ast.AST, prefilter: Prefilter) -> bool:
    """True unless no identifier in ``tree`` can name a registrar (nor does it import a
    function the project registers, whose calls here are judged)."""
    aliases = set(prefilter.aliases)
    if any(_API_IDENTIFIER.search(name) or name in aliases for name in _identifiers(tree)):
        return True
    imported = set(prefilter.imported)
    return bool(imported) and any(
        isinstance(node, ast.ImportFrom) and any(alias.name in imported for alias in node.names)
        for node in ast.walk(tree)
    )


def class_only_names(tree: ast.Module) -> frozenset[str]:
    """Top-level names bound by nothing but ``class`` statements: none can be a registrar
    (an alias or a wrapper function), so an importer's lookup of one needs no parse."""
    classes: set[str] = set()
    others: set[str] = set()
    for statement in top_level(tree.body):
        if isinstance(statement, ast.ClassDef):
            classes.add(statement.name)
        elif isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
            others.add(statement.name)
        else:
            others.update(_stored_names(statement))
    for node in ast.walk(tree):  # ``global X`` in any function can rebind X
        if isinstance(node, ast.Global):
            others.update(node.names)
    return frozenset(classes - others)


def value_names(tree: ast.Module) -> frozenset[str]:
    """Top-level names an assignment binds (not only imports, defs and classes): the names
    that can hold data, which a module attribute read (``config.X``) may be state of."""
    found: set[str] = set()
    for statement in top_level(tree.body):
        if isinstance(statement, (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.For, ast.With)):
            found.update(_stored_names(statement))
    for node in ast.walk(tree):  # ``global X`` in any function can bind X to anything
        if isinstance(node, ast.Global):
            found.update(node.names)
    return frozenset(found)


def top_level(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """Module-level statements, looking into top-level ``if`` and ``try`` blocks."""
    for statement in body:
        if isinstance(statement, ast.If):
            yield from top_level(statement.body)
            yield from top_level(statement.orelse)
        elif isinstance(statement, (ast.Try, ast.TryStar)):
            for block in (statement.body, statement.orelse, statement.finalbody):
                yield from top_level(block)
            for handler in statement.handlers:
                yield from top_level(handler.body)
        else:
            yield statement


def _stored_names(statement: ast.stmt) -> Iterator[str]:
    """Every name a statement can bind (generously: any name stored anywhere in it)."""
    for node in ast.walk(statement):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            yield node.id
        elif isinstance(node, ast.alias):
            yield (node.asname or node.name).partition(".")[0]
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            yield node.name


def _identifiers(tree: ast.AST) -> Iterator[str]:
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            yield node.id
        elif isinstance(node, ast.Attribute):
            yield node.attr
        elif isinstance(node, ast.alias):
            yield node.name.rpartition(".")[2]
            if node.asname:
                yield node.asname
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            yield node.name
        elif isinstance(node, ast.Call) and _is_getattr(node.func) and len(node.args) >= 2:
            name = node.args[1]
            if isinstance(name, ast.Constant) and isinstance(name.value, str):
                yield name.value


def _is_getattr(func: ast.expr) -> bool:
    return (isinstance(func, ast.Name) and func.id == "getattr") or (
        isinstance(func, ast.Attribute) and func.attr == "getattr"
    )
