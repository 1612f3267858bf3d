"""Code over CPython's tree that shows a cache key is missing, so that storing it fills a
memo: the cheap tier's mirror (:mod:`checker.index.change_walk`) of the forms
:mod:`checker.facts.scopes.memo_guards` reads over libcst's.

``key not in cache``, ``cache.get(key) is None`` (also with a ``None`` default, through a
walrus, or through a local bound to the lookup), ``except KeyError:`` around ``cache[key]``,
and their negations before the rest of a block they end (``if key in cache: return ...``) or
in their ``else``. The walk keeps the lookups known to be missing where it is, and asks
here what each statement adds.
"""

from __future__ import annotations

import ast
from collections.abc import Callable

#: A lookup of ``cache`` by ``key``, both as their code: (cache, key).
Lookup = tuple[str, str]
#: The lookup a local name was bound to (``v = cache.get(key)``), or None.
Got = Callable[[str], "Lookup | None"]


def item_reads(statements: list[ast.stmt]) -> list[Lookup]:
    """``cache[key]`` looked up in a ``try`` body: (cache, key) pairs."""
    return [
        (ast.unparse(node.value), ast.unparse(node.slice))
        for statement in statements
        for node in ast.walk(statement)
        if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load)
    ]


def catches_key_error(handler: ast.ExceptHandler) -> bool:
    """``except KeyError:`` (alone or in a tuple): the key was missing."""
    kind = handler.type
    names = kind.elts if isinstance(kind, ast.Tuple) else [kind]
    return any(isinstance(name, ast.Name) and name.id in ("KeyError", "LookupError") for name in names)


def got_lookup(value: ast.expr | None) -> Lookup | None:
    """``cache.get(key)`` or ``cache.get(key, None)``: (cache, key)."""
    if not (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Attribute)
        and value.func.attr == "get"
        and isinstance(value.func.value, ast.Name)
        and 1 <= len(value.args) <= 2
        and not value.keywords
        and not any(isinstance(arg, ast.Starred) for arg in value.args)
    ):
        return None
    if len(value.args) == 2 and not _is_none(value.args[1]):
        return None
    return value.func.value.id, ast.unparse(value.args[0])


def _presence(test: ast.expr, got: Got) -> tuple[Lookup, bool] | None:
    """The lookup ``test`` decides, and whether the key is missing when it holds (``key not
    in cache``, ``v is None``, ``not v``) or when it fails (``key in cache``, ``v is not None``, ``v``);
    as ``checker.facts.scopes.memo_guards.presence``."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        found = _looked_up(test.operand, got)
        return (found, True) if found is not None else None
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        (operator,), (right,) = test.ops, test.comparators
        if isinstance(operator, (ast.NotIn, ast.In)) and isinstance(right, ast.Name):
            return (right.id, ast.unparse(test.left)), isinstance(operator, ast.NotIn)
        if isinstance(operator, (ast.Is, ast.IsNot)) and _is_none(right):
            found = _looked_up(test.left, got)
            return (found, isinstance(operator, ast.Is)) if found is not None else None
        return None
    found = _looked_up(test, got)
    return (found, False) if found is not None else None


def missing_key(test: ast.expr, got: Got) -> Lookup | None:
    """The lookup whose key is missing where ``test`` holds (``if key not in cache:``)."""
    found = _presence(test, got)
    return found[0] if found is not None and found[1] else None


def present_key(test: ast.expr, got: Got) -> Lookup | None:
    """The lookup whose key is missing where ``test`` fails (``if key in cache: ... else:``)."""
    found = _presence(test, got)
    return found[0] if found is not None and not found[1] else None


def _looked_up(expr: ast.expr, got: Got) -> Lookup | None:
    """``cache.get(key)``, ``(v := cache.get(key))``, or a local ``v`` bound to it."""
    if isinstance(expr, ast.NamedExpr):
        expr = expr.value
    if isinstance(expr, ast.Name):
        return got(expr.id)
    return got_lookup(expr)


def fills(key: Lookup, missing: list[Lookup]) -> bool:
    """``cache[key] = v`` where the key is missing from this cache, or from another one
    filled by the same lookup: written once per key."""
    return any(key == lookup or key[1] == lookup[1] for lookup in missing)


def _is_none(expr: ast.expr) -> bool:
    return isinstance(expr, ast.Constant) and expr.value is None


def returns_when_present(statement: ast.stmt, got: Got) -> Lookup | None:
    """``if key in cache: return ...`` (or ``raise``; or ``if v is not None: return v``)
    with no else: (cache, key), missing after it."""
    if not isinstance(statement, ast.If) or statement.orelse or not statement.body:
        return None
    lookup = present_key(statement.test, got)
    if lookup is None or not isinstance(statement.body[-1], (ast.Return, ast.Raise)):
        return None
    return lookup
