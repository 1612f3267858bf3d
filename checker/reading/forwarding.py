"""Which top-level defs of a module cannot be registrar wrappers, read from CPython's tree.

The full tier takes a def for a wrapper when one of its calls is given a parameter as the
registered argument and calls the API, a wrapper, or an imported registrar
(:meth:`checker.facts.registrations.sites.Registrars._find_wrappers`, to a fixed point). A
def that forwards a parameter only to builtins, to a parameter (``fn(x)``, ``x.add(i)``), to
other such defs or to imported names is no wrapper unless one of those imported names is a
registrar: the project's index asks that of their modules' outlines (no libcst parse), so that
``torch._dynamo.maybe_mark_dynamic``, which passes its tensor to ``hasattr`` and
``is_traceable_wrapper_subclass``, costs no parse of decorators.py. Anything else a forwarding
call calls (a local variable, an attribute of an object, a name a star import may bind) leaves
the def a possible wrapper.
"""

from __future__ import annotations

import ast
import builtins
from collections.abc import Iterator, Mapping, Set

from checker.reading.forms import names_registrar
from checker.reading.mentions import registered_arguments, top_level

_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)
_BUILTINS = frozenset(dir(builtins))


def wrappers_unless(tree: ast.Module, rebound: Set[str]) -> Mapping[str, frozenset[str]]:
    """Top-level defs (bound by nothing else) that are no wrapper unless one of the imported
    names they map to is a registrar (``m.f`` for ``from m import f``, ``.m.f`` for a relative
    one, ``m.g.f`` for ``m.g.f`` after ``import m``): to none, no wrapper at all. A def left
    out may be one. ``rebound``: the names a ``global`` statement declares anywhere."""
    binders = _top_level_binders(tree)
    star = "*" in binders
    defs = {
        name: statements[0]
        for name, statements in binders.items()
        if len(statements) == 1
        and isinstance(statements[0], _DEFS)
        and name not in rebound
        and not names_registrar(name)  # (the API's own def, or named as it: its qualified name may be it)
    }
    imported = _imported_names(binders, rebound)
    needs: dict[str, tuple[frozenset[str], frozenset[str]]] = {}  # def -> (its defs, its imported names)
    for name, definition in defs.items():
        found = _callees(definition, defs, imported, binders, star)
        if found is not None:
            needs[name] = found
    # The greatest fixed point: a def is kept while every def it forwards to is kept (the full
    # tier's wrappers are the least one, so a def that forwards only to itself is none).
    changed = True
    while changed:
        changed = False
        for name, (local, _) in list(needs.items()):
            if not local <= needs.keys():
                del needs[name]
                changed = True
    return {name: _imported_closure(name, needs) for name in needs}


def reexports_only(tree: ast.Module, rebound: Set[str]) -> frozenset[str]:
    """Top-level names bound by one ``from m import name`` alone, under their own name (no
    ``as``), that cannot name the API: whether one is a registrar is the question of ``m``."""
    found = _imported_names(_top_level_binders(tree), rebound)
    return frozenset(
        name
        for name, dotted in found.items()
        if dotted.rpartition(".")[2] == name and not names_registrar(name) and dotted != name and "." in dotted
    )


def _imported_closure(name: str, needs: Mapping[str, tuple[frozenset[str], frozenset[str]]]) -> frozenset[str]:
    """The imported names ``name`` forwards to, directly or through the module's defs."""
    seen, pending, found = {name}, [name], set[str]()
    while pending:
        local, imported = needs[pending.pop()]
        found |= imported
        for other in local - seen:
            seen.add(other)
            pending.append(other)
    return frozenset(found)


def _callees(
    definition: ast.FunctionDef | ast.AsyncFunctionDef,
    defs: Mapping[str, ast.stmt],
    imported: Mapping[str, str],
    binders: Mapping[str, list[ast.stmt]],
    star: bool,
) -> tuple[frozenset[str], frozenset[str]] | None:
    """The module's defs and the imported names that the calls in ``definition`` given a
    parameter as the registered argument call; None where one calls anything else."""
    parameters, defaulted = _parameters(definition)
    local = _stored_inside(definition)
    local_defs: set[str] = set()
    imported_names: set[str] = set()
    for node in ast.walk(definition):
        if not isinstance(node, ast.Call):
            continue
        if not any(isinstance(arg, ast.Name) and arg.id in parameters for arg in registered_arguments(node)):
            continue
        root, dotted = _spelled(node.func)
        if root is None or names_registrar(root) or (dotted and names_registrar(dotted.rpartition(".")[2])):
            return None
        if root in parameters:
            if root in defaulted or root in local:
                return None  # (a default, or a value stored in it, may be a registrar)
        elif root in local or star:
            return None
        elif root in defs and dotted == root:
            local_defs.add(root)
        elif root in imported:
            imported_names.add(imported[root] + dotted.removeprefix(root))
        elif not (root in _BUILTINS and root not in binders and dotted == root):
            return None
    return frozenset(local_defs), frozenset(imported_names)


def _spelled(func: ast.expr) -> tuple[str | None, str]:
    """The root name and dotted spelling of a callee (``a.b.c``: ``a``, ``"a.b.c"``); no root
    for anything else (a call's result, a subscript)."""
    parts: list[str] = []
    while isinstance(func, ast.Attribute):
        parts.append(func.attr)
        func = func.value
    if not isinstance(func, ast.Name):
        return None, ""
    return func.id, ".".join([func.id, *reversed(parts)])


def _top_level_binders(tree: ast.Module) -> dict[str, list[ast.stmt]]:
    """Each name the module's top level binds -> the statements that bind it (``*``: a star import)."""
    binders: dict[str, list[ast.stmt]] = {}
    for statement in top_level(tree.body):
        for name in _bound_by(statement):
            binders.setdefault(name, []).append(statement)
    return binders


def _imported_names(binders: Mapping[str, list[ast.stmt]], rebound: Set[str]) -> dict[str, str]:
    """Names bound by one import alone (and nothing else) -> the dotted name they stand for."""
    found: dict[str, str] = {}
    for name, statements in binders.items():
        if len(statements) != 1 or name in rebound:
            continue
        statement = statements[0]
        if isinstance(statement, ast.ImportFrom):
            module = "." * statement.level + (statement.module or "")
            for alias in statement.names:
                if (alias.asname or alias.name) == name:
                    found[name] = f"{module}{alias.name}" if module.endswith(".") else f"{module}.{alias.name}"
        elif isinstance(statement, ast.Import):
            for alias in statement.names:
                if alias.asname == name:
                    found[name] = alias.name
                elif alias.asname is None and alias.name.partition(".")[0] == name:
                    found[name] = name  # ``import a.b`` binds ``a``
    return found


def _bound_by(statement: ast.stmt) -> Iterator[str]:
    """Every name a top-level statement can bind, ``*`` for a star import: not what the
    bodies of its defs, classes and lambdas bind (their own scopes)."""
    pending: list[ast.AST] = [statement]
    while pending:
        node = pending.pop()
        yield from _binds(node)
        if not isinstance(node, (*_DEFS, ast.ClassDef, ast.Lambda)):
            pending.extend(ast.iter_child_nodes(node))


def _stored_inside(definition: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    """Every name bound anywhere inside ``definition`` but by a parameter (nested defs included)."""
    names: set[str] = set()
    for node in ast.walk(definition):
        if node is not definition:
            names.update(_binds(node))
        if isinstance(node, (ast.Global, ast.Nonlocal)):
            names.update(node.names)
    return names


def _binds(node: ast.AST) -> Iterator[str]:
    if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
        yield node.id
    elif isinstance(node, ast.alias):
        yield (node.asname or node.name).partition(".")[0]
    elif isinstance(node, (*_DEFS, ast.ClassDef)):
        yield node.name
    elif isinstance(node, ast.ExceptHandler) and node.name:
        yield node.name
    elif isinstance(node, (ast.MatchAs, ast.MatchStar)) and node.name:
        yield node.name
    elif isinstance(node, ast.MatchMapping) and node.rest:
        yield node.rest


def _parameters(definition: ast.FunctionDef | ast.AsyncFunctionDef) -> tuple[set[str], set[str]]:
    """The parameters of ``definition`` and of every def and lambda in it, and those of them with a default."""
    names: set[str] = set()
    defaulted: set[str] = set()
    for node in ast.walk(definition):
        if not isinstance(node, (*_DEFS, ast.Lambda)):
            continue
        arguments = node.args
        positional = [*arguments.posonlyargs, *arguments.args]
        names.update(argument.arg for argument in (*positional, *arguments.kwonlyargs))
        names.update(argument.arg for argument in (arguments.vararg, arguments.kwarg) if argument is not None)
        defaulted.update(argument.arg for argument in positional[len(positional) - len(arguments.defaults) :])
        defaulted.update(
            a.arg for a, d in zip(arguments.kwonlyargs, arguments.kw_defaults, strict=True) if d is not None
        )
    return names, defaulted
