"""Code that shows a cache key is missing, so that storing it fills a memo.

``if key not in cache:`` (or ``cache.get(key) is None``), ``except KeyError:`` around
``cache[key]``, and ``if key in cache: return ...`` before the rest of a block: under
each, ``cache[key] = value`` memoises. The scope builder keeps the (cache, key) pairs
known to be missing as it walks, and asks here what each statement adds.
"""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

from checker.facts.scopes.syntax import children


def fills_missing(target: cst.Subscript, missing: Sequence[tuple[str, str]]) -> bool:
    """``cache[key] = v`` under ``if key not in cache:``, or after ``if key in cache: return``."""
    if not isinstance(target.value, cst.Name) or len(target.slice) != 1:
        return False
    key = target.slice[0].slice
    if not isinstance(key, cst.Index):
        return False
    return (target.value.value, _code(key.value)) in missing


def _code(node: cst.CSTNode) -> str:
    return cst.Module([]).code_for_node(node)


def item_reads(block: cst.CSTNode) -> list[tuple[str, str]]:
    """``cache[key]`` looked up in a ``try`` body: (cache, key) pairs."""
    found = []
    stack = [block]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Subscript) and isinstance(node.value, cst.Name) and len(node.slice) == 1:
            index = node.slice[0].slice
            if isinstance(index, cst.Index):
                found.append((node.value.value, _code(index.value)))
        stack.extend(children(node))
    return found


def catches_key_error(handler: cst.ExceptHandler | cst.ExceptStarHandler) -> bool:
    """``except KeyError:`` (alone or in a tuple): the key was missing."""
    kind = handler.type
    names = [element.value for element in kind.elements] if isinstance(kind, cst.Tuple) else [kind]
    return any(isinstance(name, cst.Name) and name.value in ("KeyError", "LookupError") for name in names)


def missing_key(test: cst.BaseExpression) -> tuple[str, str] | None:
    """``key not in cache`` (or ``cache.get(key) is None``): (cache, key) when it holds."""
    if isinstance(test, cst.Comparison) and len(test.comparisons) == 1:
        (target,) = test.comparisons
        if isinstance(target.operator, cst.NotIn) and isinstance(target.comparator, cst.Name):
            return target.comparator.value, _code(test.left)
        if isinstance(target.operator, cst.Is) and isinstance(target.comparator, cst.Name):
            left = test.left
            if (
                target.comparator.value == "None"
                and isinstance(left, cst.Call)
                and isinstance(left.func, cst.Attribute)
                and left.func.attr.value == "get"
                and isinstance(left.func.value, cst.Name)
                and left.args
            ):
                return left.func.value.value, _code(left.args[0].value)
    return None


def returns_when_present(statement: cst.CSTNode) -> tuple[str, str] | None:
    """``if key in cache: return ...`` (or ``raise``: a registry that refuses duplicates)
    with no else: (cache, key), missing after it."""
    if not isinstance(statement, cst.If) or statement.orelse is not None:
        return None
    test = statement.test
    if not (isinstance(test, cst.Comparison) and len(test.comparisons) == 1):
        return None
    (target,) = test.comparisons
    if not (isinstance(target.operator, cst.In) and isinstance(target.comparator, cst.Name)):
        return None
    body = statement.body
    last = body.body[-1] if isinstance(body, cst.IndentedBlock) and body.body else body
    if not isinstance(last, (cst.SimpleStatementLine, cst.SimpleStatementSuite)):
        return None
    if not (last.body and isinstance(last.body[-1], (cst.Return, cst.Raise))):
        return None
    return target.comparator.value, _code(test.left)
