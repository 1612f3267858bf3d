"""Caches of tensors read by a registered body: captured tensors (evidence/dynamo/FINDINGS.md S§12).

A memo dict that the code fills with tensors where a key is missing (``if k not in C: C[k]
= torch.ones(k)``, ``C.setdefault(k, ...)``, every spelling :mod:`checker.facts.scopes.memo_guards`
knows), and a def decorated with ``functools.cache`` or ``functools.lru_cache`` that
returns tensors, hand the body a tensor it was not passed: the first compiled call fails,
and when the cache is still empty then, it keeps the FakeTensor made while compiling, so
every later eager call of the program fails too. A cache of Python values is neither: a
memo of values is not state (its reads are no capture), and a cached function returning
numbers is a helper like any other.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

import libcst as cst

from checker.facts.captures.capture import Capture, Source, laundering
from checker.facts.kinds.inference import Inference
from checker.facts.kinds.kind import Basis, Inferred, Kind
from checker.facts.registrations.targets import Body
from checker.facts.scopes.memo_guards import got_lookup, stored_lookup
from checker.facts.scopes.tree import Read, Scope, ScopeKind, ScopeTree

#: The decorators that cache what a def returns, by qualified name.
CACHING_DECORATORS = ("functools.cache", "functools.lru_cache")
#: How deep the values stored in a cache are followed through the locals that hold them.
_DEPTH = 4


class CacheForm(enum.Enum):
    MEMO = "memo"  # a container the code fills where a key is missing
    FUNCTION = "function"  # a def decorated with functools.cache or lru_cache


@dataclass(frozen=True)
class Cache:
    """What caches the tensor: ``filled`` is the read of a memo that stores one (a node of
    the module that binds the memo), ``decorator`` the qualified name of a cached def's."""

    form: CacheForm
    filled: cst.CSTNode | None = None
    decorator: str = ""


@dataclass(frozen=True, eq=False)
class CachedCapture(Capture):
    """A capture of a tensor through a cache: the memo's name read, or the call of the cached def."""

    cache: Cache | None = None


class TensorCaches:
    """Tells the reads of a cache of tensors among a body's captures."""

    def __init__(self, tree: ScopeTree, inference: Inference) -> None:
        self.tree = tree
        self.inference = inference
        self._fills: dict[tuple[str, Scope], cst.CSTNode | None] = {}

    def capture(
        self,
        body: Body,
        read: Read,
        owner: Scope,
        inferred: Inferred,
        parents: dict[cst.CSTNode, cst.CSTNode],
        source: Source,
        binding: cst.CSTNode | None,
    ) -> CachedCapture | None:
        """The capture of ``read`` (of a name bound in ``owner``, of kind ``inferred``) when
        it reads a cache of tensors, else None."""
        if inferred.kind is Kind.FUNCTION:
            return self._cached_call(body, read, inferred, parents, source)
        if inferred.kind is not Kind.MUTABLE:
            return None
        filled = self.tensor_fill(read.name, owner)
        if filled is None:
            return None
        held = Inferred(Kind.TENSOR_CONTAINER, Basis.TENSOR_DISPLAY)
        laundered = laundering(read.node, parents)
        cache = Cache(CacheForm.MEMO, filled)
        return CachedCapture(body, read.node, read.name, source, held, binding, laundered, cache=cache)

    def tensor_fill(self, name: str, owner: Scope) -> cst.CSTNode | None:
        """The first memo fill anywhere in the module of a tensor into ``owner``'s ``name``."""
        key = (name, owner)
        if key not in self._fills:
            self._fills[key] = next(
                (read.node for read in self.tree.mutations_of(owner, name) if self._fills_tensor(read)), None
            )
        return self._fills[key]

    def _fills_tensor(self, read: Read) -> bool:
        store = self.tree.stores.get(read.node)
        if read.mutation is None or not read.mutation.memoises or store is None or store.value is None:
            return False
        return self._holds_tensor(store.value, store.scope, read.name, _DEPTH)

    def _holds_tensor(self, expr: cst.BaseExpression, scope: Scope, cache: str, depth: int) -> bool:
        """Whether a value stored in ``cache`` is or holds a tensor: inferred so, a display
        holding one, or a local that some binding or in-place addition gives one (the
        bindings that read ``cache`` itself, ``v = cache.get(k)``, hold what it holds)."""
        if depth == 0:
            return False
        if isinstance(expr, (cst.Tuple, cst.List, cst.Set)):
            return any(self._holds_tensor(e.value, scope, cache, depth - 1) for e in expr.elements)
        if isinstance(expr, cst.Name) and scope.kind is not ScopeKind.MODULE and expr.value in scope.bindings:
            values = [b.value for b in scope.bindings[expr.value] if b.value is not None and not _reads(b.value, cache)]
            values += [
                store.value
                for read in scope.reads
                if read.name == expr.value and (store := self.tree.stores.get(read.node)) is not None and store.value
            ]
            return any(self._holds_tensor(value, scope, cache, depth - 1) for value in values)
        return self.inference.infer(expr, scope).kind.is_tensor_like

    def _cached_call(
        self,
        body: Body,
        read: Read,
        inferred: Inferred,
        parents: dict[cst.CSTNode, cst.CSTNode],
        source: Source,
    ) -> CachedCapture | None:
        """``table(n)`` of ``@functools.lru_cache def table(n): return torch.arange(n)``."""
        call, definition = parents.get(read.node), inferred.definition
        if not (isinstance(call, cst.Call) and call.func is read.node and isinstance(definition, cst.FunctionDef)):
            return None
        outer, scope = inferred.scope, self.tree.scope_of.get(definition)
        if outer is None or scope is None:
            return None
        decorators = self.inference.decorator_names(definition, outer)
        decorator = next((name for name in CACHING_DECORATORS if name in decorators), None)
        if decorator is None or not any(self._holds_tensor(value, scope, "", _DEPTH) for value in scope.returns):
            return None
        held = Inferred(Kind.TENSOR, Basis.CALL, read.name)
        cache = Cache(CacheForm.FUNCTION, decorator=decorator)
        return CachedCapture(body, call, read.name, source, held, definition.name, None, cache=cache)


def _reads(value: cst.BaseExpression, cache: str) -> bool:
    """``cache.get(key)`` or ``cache[key]``: a value read back from the cache itself."""
    if isinstance(value, cst.Subscript):
        lookup = stored_lookup(value)
        return lookup is not None and lookup[0] == cache
    lookup = got_lookup(value)
    return lookup is not None and lookup[0] == cache
