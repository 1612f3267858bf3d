"""Code that shows a cache key is missing, so that storing it fills a memo, and whether the
value stored is computed from the key alone.

The tests that say a key is missing: ``key not in cache``, ``cache.get(key) is None`` (also
with a ``None`` default, through a walrus, or through a local bound to the lookup: ``v =
cache.get(key)`` then ``if v is None:`` or ``if not v:``); ``except KeyError:`` around
``cache[key]``; and their negations before the rest of a block that they end (``if key in
cache: return ...``, ``if v is not None: return v``) or in their ``else``. Under each,
``cache[key] = value`` memoises, and so does a second cache filled by the same lookup:
each is written once per key. The scope builder keeps the (cache, key) pairs known to be
missing as it walks, and asks here what each statement adds; the cheap tier mirrors these
forms over CPython's tree (``checker.index.memo_forms``).

A value is computed from the key when every name it reads is the key, a name the key is
computed from, the cache itself, a name bound outside the function (a helper, a module, a
constant), or a local whose every binding, loop iterable and in-place addition is computed
from them in turn (evidence/dynamo/FINDINGS.md S§12: such a memo keeps what any later call
would compute). A parameter other than the key is not: ``cache[k] = k * scale`` keeps the
first call's ``scale``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence

import libcst as cst

from checker.facts.scopes.syntax import children
from checker.facts.scopes.tree import Binding, BindingKind, Scope, ScopeKind, Store

#: A lookup of ``cache`` by ``key``, the key as its code: (cache, key).
Lookup = tuple[str, str]
#: The lookup a local name was bound to (``v = cache.get(key)``), or None.
Got = Callable[[str], "Lookup | None"]


def code(node: cst.CSTNode) -> str:
    return cst.Module([]).code_for_node(node)


def fills_missing(target: cst.Subscript, missing: Sequence[Lookup]) -> bool:
    """``cache[key] = v`` under ``if key not in cache:``, or after ``if key in cache: return``."""
    lookup = stored_lookup(target)
    return lookup is not None and lookup in missing


def fills_beside(target: cst.Subscript, missing: Sequence[Lookup]) -> bool:
    """``cache[key] = v`` under a lookup of another cache by the same key (two caches filled
    by one lookup)."""
    lookup = stored_lookup(target)
    return lookup is not None and any(key == lookup[1] for _, key in missing)


def stored_lookup(target: cst.Subscript) -> Lookup | None:
    """``cache[key]`` as (cache, key), for a name subscripted by one index."""
    if not isinstance(target.value, cst.Name) or len(target.slice) != 1:
        return None
    key = target.slice[0].slice
    if not isinstance(key, cst.Index):
        return None
    return target.value.value, code(key.value)


def item_reads(block: cst.CSTNode) -> list[Lookup]:
    """``cache[key]`` looked up in a ``try`` body: (cache, key) pairs."""
    found = []
    stack = [block]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Subscript) and isinstance(node.value, cst.Name) and len(node.slice) == 1:
            index = node.slice[0].slice
            if isinstance(index, cst.Index):
                found.append((node.value.value, code(index.value)))
        stack.extend(children(node))
    return found


def catches_key_error(handler: cst.ExceptHandler | cst.ExceptStarHandler) -> bool:
    """``except KeyError:`` (alone or in a tuple): the key was missing."""
    kind = handler.type
    names = [element.value for element in kind.elements] if isinstance(kind, cst.Tuple) else [kind]
    return any(isinstance(name, cst.Name) and name.value in ("KeyError", "LookupError") for name in names)


def got_lookup(value: cst.BaseExpression | None) -> Lookup | None:
    """``cache.get(key)`` or ``cache.get(key, None)``: (cache, key)."""
    if not (
        isinstance(value, cst.Call)
        and isinstance(value.func, cst.Attribute)
        and value.func.attr.value == "get"
        and isinstance(value.func.value, cst.Name)
        and 1 <= len(value.args) <= 2
        and all(arg.keyword is None and arg.star == "" for arg in value.args)
    ):
        return None
    if len(value.args) == 2 and not _is_none(value.args[1].value):
        return None
    return value.func.value.value, code(value.args[0].value)


def presence(test: cst.BaseExpression, got: Got) -> tuple[Lookup, bool] | None:
    """The lookup ``test`` decides, and whether the key is missing when the test holds
    (``key not in cache``, ``v is None``, ``not v``) or when it fails (``key in cache``,
    ``v is not None``, ``v``)."""
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        found = _looked_up(test.expression, got)
        return (found, True) if found is not None else None
    if isinstance(test, cst.Comparison) and len(test.comparisons) == 1:
        (target,) = test.comparisons
        operator = target.operator
        if isinstance(operator, (cst.NotIn, cst.In)) and isinstance(target.comparator, cst.Name):
            return (target.comparator.value, code(test.left)), isinstance(operator, cst.NotIn)
        if isinstance(operator, (cst.Is, cst.IsNot)) and _is_none(target.comparator):
            found = _looked_up(test.left, got)
            return (found, isinstance(operator, cst.Is)) if found is not None else None
        return None
    found = _looked_up(test, got)
    return (found, False) if found is not None else None


def missing_key(test: cst.BaseExpression, got: Got) -> Lookup | None:
    """The lookup whose key is missing where ``test`` holds (``if key not in cache:``)."""
    found = presence(test, got)
    return found[0] if found is not None and found[1] else None


def present_key(test: cst.BaseExpression, got: Got) -> Lookup | None:
    """The lookup whose key is missing where ``test`` fails (``if key in cache: ... else:``)."""
    found = presence(test, got)
    return found[0] if found is not None and not found[1] else None


def returns_when_present(statement: cst.CSTNode, got: Got) -> Lookup | None:
    """``if key in cache: return ...`` (or ``raise``: a registry that refuses duplicates;
    or ``if v is not None: return v``) with no else: the lookup, missing after it."""
    if not isinstance(statement, cst.If) or statement.orelse is not None:
        return None
    lookup = present_key(statement.test, got)
    if lookup is None:
        return None
    body = statement.body
    last = body.body[-1] if isinstance(body, cst.IndentedBlock) and body.body else body
    if not isinstance(last, (cst.SimpleStatementLine, cst.SimpleStatementSuite)):
        return None
    if not (last.body and isinstance(last.body[-1], (cst.Return, cst.Raise))):
        return None
    return lookup


def _looked_up(expr: cst.BaseExpression, got: Got) -> Lookup | None:
    """``cache.get(key)``, ``(v := cache.get(key))``, or a local ``v`` bound to it."""
    if isinstance(expr, cst.NamedExpr):
        expr = expr.value
    if isinstance(expr, cst.Name):
        return got(expr.value)
    return got_lookup(expr)


def _is_none(expr: cst.BaseExpression) -> bool:
    return isinstance(expr, cst.Name) and expr.value == "None"


# -- values computed from the key ---------------------------------------------------------


class KeyDerivation:
    """Whether a value stored in a cache in ``scope`` is computed from its key, judged
    while the scope is built: the bindings and stores seen so far are the ones before it.
    ``sources`` gives what a loop target or augmented assignment (binding node) is computed from."""

    def __init__(
        self,
        scope: Scope,
        stores: Mapping[cst.Name, Store],
        sources: Mapping[cst.CSTNode, cst.BaseExpression],
    ) -> None:
        self.scope = scope
        self.stores = stores
        self.sources = sources
        self._judging: set[str] = set()

    def from_key(self, value: cst.BaseExpression | None, key: cst.BaseExpression, cache: str) -> bool:
        if self.scope.kind is ScopeKind.MODULE:
            return True  # top-level code runs once, at import
        allowed = {cache}
        for name in loaded_names(key):
            allowed |= self._key_names(name)
        self._judging = set(allowed)
        return value is None or self._derived(value)

    def _key_names(self, name: str) -> set[str]:
        """``name`` and the names a local key is computed from (``key = (n, m)``)."""
        found, pending = {name}, [name]
        while pending:
            for binding in self.scope.bindings.get(pending.pop(), []):
                for source in self._binding_sources(binding) or ():
                    new = set(loaded_names(source)) - found
                    found |= new
                    pending += new
        return found

    def _derived(self, expr: cst.BaseExpression) -> bool:
        return all(self._derived_name(name) for name in loaded_names(expr))

    def _derived_name(self, name: str) -> bool:
        if name in self._judging:
            return True  # the key, the cache, or a local being judged (``total += i``)
        bindings = self.scope.bindings.get(name)
        if not bindings:
            return True  # bound outside the function: a helper, a module, a constant
        self._judging.add(name)
        for binding in bindings:
            sources = self._binding_sources(binding)
            if sources is None or not all(self._derived(source) for source in sources):
                return False
        return all(value is not None and self._derived(value) for value in self._added(name))

    def _binding_sources(self, binding: Binding) -> list[cst.BaseExpression] | None:
        """What one binding's value is computed from; None when it is not known (a
        parameter, a with or except target)."""
        kind = binding.kind
        if kind in (BindingKind.IMPORT, BindingKind.FUNCTION, BindingKind.CLASS, BindingKind.TYPE):
            return []
        if kind in (BindingKind.LOOP, BindingKind.AUGMENTED):
            source = self.sources.get(binding.node)
            return None if source is None else [source]
        if kind in (BindingKind.ASSIGN, BindingKind.ANNOTATION, BindingKind.WALRUS) and binding.value is not None:
            return [binding.value]
        return None

    def _added(self, name: str) -> Iterator[cst.BaseExpression | None]:
        """What the function stores into its local ``name`` in place (``parts.append(v)``);
        None for a change that stores nothing known (``parts.clear()``, ``obj.attr = v``)."""
        for read in self.scope.reads:
            if read.name == name and read.mutation is not None:
                store = self.stores.get(read.node)
                yield None if store is None else store.value


def loaded_names(expr: cst.CSTNode) -> Iterator[str]:
    """The names an expression reads (not attribute names or keywords of a call)."""
    pending = [expr]
    while pending:
        node = pending.pop()
        if isinstance(node, cst.Name):
            yield node.value
        elif isinstance(node, cst.Attribute):
            pending.append(node.value)
        elif isinstance(node, cst.Arg):
            pending.append(node.value)
        elif not isinstance(node, cst.Lambda):
            pending.extend(children(node))
