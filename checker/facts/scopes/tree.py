"""Python's scoping rules over a libcst tree: which binding does each name read see?

One pass over the module records, per scope, every binding (assignment, import,
def, parameter, loop target, ...) and every read of a name, the way the compiler's
symbol table does: a name bound anywhere in a function is local to all of it unless
declared ``global``/``nonlocal``; class bodies do not enclose their methods;
comprehensions have their own scope whose first iterable is evaluated outside;
``:=`` binds in the nearest enclosing non-comprehension scope; defaults and
decorators are evaluated in the enclosing scope. Annotations are not runtime reads.

Along the way it records what later facts need without a second pass: every call
with its scope, decorated definitions, ``return`` values, attribute stores such as
``self.w = ...``, and reads that mutate the object they read (``d[k] = v``,
``xs.append(v)``). This module holds the model and its lookups; the pass itself is
``checker.facts.scopes.builder``.
"""

from __future__ import annotations

import enum
from collections.abc import Iterator
from dataclasses import dataclass, field

import libcst as cst


class ScopeKind(enum.Enum):
    MODULE = "module"
    CLASS = "class"
    FUNCTION = "function"
    LAMBDA = "lambda"
    COMPREHENSION = "comprehension"


class BindingKind(enum.Enum):
    ASSIGN = "assignment"
    ANNOTATION = "annotated assignment"
    AUGMENTED = "augmented assignment"
    LOOP = "loop target"
    WITH = "with target"
    EXCEPT = "except target"
    IMPORT = "import"
    FUNCTION = "def"
    CLASS = "class"
    PARAMETER = "parameter"
    DELETE = "del"
    WALRUS = "assignment expression"
    MATCH = "match capture"
    TYPE = "type statement"


@dataclass(eq=False)
class Binding:
    """One place where a name is bound. ``value`` is set when the bound value is known."""

    name: str
    node: cst.CSTNode
    kind: BindingKind
    written_in: Scope
    value: cst.BaseExpression | None = None
    annotation: cst.BaseExpression | None = None
    imported: str | None = None
    definition: cst.FunctionDef | cst.ClassDef | None = None
    #: For ``from m import x`` bindings: the import statement.
    statement: cst.ImportFrom | None = None
    #: The (statement, branch) pairs of the if/try/match branches it sits in.
    branches: tuple[tuple[cst.CSTNode, int], ...] = ()
    in_loop: bool = False
    #: Under ``if __name__ == "__main__":``: a script's driver code, run after its definitions.
    in_main: bool = False

    def exclusive_with(self, other: Binding) -> bool:
        """Whether the two bindings sit in different branches of one if/try/match."""
        mine = dict(self.branches)
        return any(statement in mine and mine[statement] != branch for statement, branch in other.branches)


class MutationKind(enum.Enum):
    ATTRIBUTE = "attribute"  # ``obj.attr = v``
    ITEM = "item"  # ``obj[k] = v``
    METHOD = "method"  # ``obj.append(v)``, ``t.add_(v)``
    DELETE = "delete"  # ``del obj[k]``, ``del obj.attr``


@dataclass(frozen=True)
class Mutation:
    """How a read changes the object it reads; ``name`` is the attribute or method.
    ``memoises``: it only fills in what is missing (``if k not in cache: cache[k] = v``,
    ``cache.setdefault(k, v)``), so what was read before stays what it was."""

    kind: MutationKind
    name: str = ""
    memoises: bool = False


@dataclass(frozen=True, eq=False)
class Store:
    """What a change in place puts in the object: ``cache[key] = value``,
    ``cache.setdefault(key, value)``, ``parts.append(value)`` (the last positional argument).
    ``memo``: a fill of what is missing with a value computed from the key alone (S§12), so
    filling it again, at trace time or on a later call, stores what is there already."""

    value: cst.BaseExpression | None
    scope: Scope
    memo: bool = False


class Declaration(enum.Enum):
    """The statement that makes a function's assignment rebind an outer name."""

    GLOBAL = "global"
    NONLOCAL = "nonlocal"


@dataclass(eq=False)
class Read:
    """A load of a name. ``mutation`` says how the read object is changed, if it is."""

    name: str
    node: cst.Name
    scope: Scope
    mutation: Mutation | None = None
    #: In a loop, or under ``if __name__ == "__main__":`` (see ``Binding``).
    in_loop: bool = False
    in_main: bool = False


@dataclass(eq=False)
class AttributeStore:
    """``base.attr = value`` (or ``base.attr += value``) written in some scope."""

    base: str
    attr: str
    value: cst.BaseExpression | None
    node: cst.Attribute


@dataclass(eq=False)
class Scope:
    kind: ScopeKind
    node: cst.CSTNode
    parent: Scope | None
    name: str
    bindings: dict[str, list[Binding]] = field(default_factory=dict)
    reads: list[Read] = field(default_factory=list)
    declared_global: set[str] = field(default_factory=set)
    declared_nonlocal: set[str] = field(default_factory=set)
    redirected: list[Binding] = field(default_factory=list)
    children: list[Scope] = field(default_factory=list)
    returns: list[cst.BaseExpression] = field(default_factory=list)
    attribute_stores: list[AttributeStore] = field(default_factory=list)
    star_import: bool = False

    @property
    def is_function_like(self) -> bool:
        return self.kind in (ScopeKind.FUNCTION, ScopeKind.LAMBDA, ScopeKind.COMPREHENSION)

    def walk(self) -> Iterator[Scope]:
        """This scope and every scope nested in it, outer before inner, in source order."""
        stack = [self]
        while stack:
            scope = stack.pop()
            yield scope
            stack.extend(reversed(scope.children))

    def encloses(self, other: Scope) -> bool:
        scope: Scope | None = other
        while scope is not None:
            if scope is self:
                return True
            scope = scope.parent
        return False

    def enclosing_function(self) -> Scope | None:
        """The nearest function or lambda scope around (or at) this scope."""
        scope: Scope | None = self
        while scope is not None and scope.kind not in (ScopeKind.FUNCTION, ScopeKind.LAMBDA):
            scope = scope.parent
        return scope


@dataclass(eq=False)
class ScopeTree:
    """The scopes of one module, with the lookups the facts need."""

    module: Scope
    scope_of: dict[cst.CSTNode, Scope]
    calls: list[tuple[cst.Call, Scope]]
    definitions: list[tuple[cst.FunctionDef | cst.ClassDef, Scope]]
    discarded_calls: set[cst.Call]
    default_reads: dict[cst.CSTNode, list[Read]]
    #: ``target = <call>``: the call -> its (single) assignment target.
    assigned_calls: dict[cst.Call, cst.BaseExpression] = field(default_factory=dict)
    #: The read of an object that a change in place stores into -> what it stores.
    stores: dict[cst.Name, Store] = field(default_factory=dict)
    _calls_by_scope: dict[Scope, list[tuple[cst.Call, Scope]]] | None = None
    _mutations: dict[tuple[Scope, str], list[Read]] | None = None

    def owner(self, scope: Scope, name: str) -> Scope | None:
        """The scope whose binding of ``name`` a read in ``scope`` sees; None for builtins."""
        if scope.kind is ScopeKind.MODULE:
            return scope if name in scope.bindings or scope.star_import else None
        if name in scope.declared_global:
            return self.module
        if name in scope.declared_nonlocal:
            return self.free_owner(scope.parent, name)
        if name in scope.bindings:
            return scope
        return self.free_owner(scope.parent, name)

    def free_owner(self, scope: Scope | None, name: str) -> Scope | None:
        """The scope that binds ``name`` for a read that does not bind it, looked up from
        ``scope`` outwards (class bodies skipped); None for builtins."""
        while scope is not None:
            if scope.kind is ScopeKind.MODULE:
                return scope if name in scope.bindings or scope.star_import else None
            if scope.kind is not ScopeKind.CLASS:
                if name in scope.declared_global:
                    return self.module
                if name in scope.bindings:
                    return scope
            scope = scope.parent
        return None

    def bindings(self, scope: Scope, name: str) -> list[Binding]:
        owner = self.owner(scope, name)
        return [] if owner is None else owner.bindings.get(name, [])

    def calls_in(self, scope: Scope) -> list[tuple[cst.Call, Scope]]:
        """The calls written directly in ``scope`` (not in scopes nested in it)."""
        if self._calls_by_scope is None:
            self._calls_by_scope = {}
            for call, where in self.calls:
                self._calls_by_scope.setdefault(where, []).append((call, where))
        return self._calls_by_scope.get(scope, [])

    def mutations_of(self, owner: Scope, name: str) -> list[Read]:
        """Every read anywhere in the module that sees ``owner``'s ``name`` and changes the
        object it reads (``Read.mutation``), in module order. Indexed on the first call:
        asked once per capture, a scan of the module each time was quadratic."""
        if self._mutations is None:
            self._mutations = {}
            for scope in self.module.walk():
                for read in scope.reads:
                    seen = self.owner(scope, read.name) if read.mutation is not None else None
                    if seen is not None:
                        self._mutations.setdefault((seen, read.name), []).append(read)
        return self._mutations.get((owner, name), [])


#: Methods that change the object they are called on.
MUTATING_METHODS = frozenset(
    {
        "append", "extend", "insert", "pop", "remove", "clear", "update", "setdefault",
        "popitem", "add", "discard", "sort", "reverse", "appendleft", "extendleft",
        "popleft", "__setitem__", "__delitem__", "fill", "resize", "put",
    }
)  # fmt: skip


#: torch's in-place methods end so (``add_``, ``copy_``); a private name (``_x_``) is not one.
IN_PLACE_SUFFIX = "_"
#: Mutating methods that only fill in what is missing: a memoisation cache keeps what was read.
MEMOISING_METHODS = frozenset({"setdefault"})
#: :func:`is_mutating_method` as a regex over bytes (the change scan's text pre-filter).
MUTATING_METHOD_PATTERN = (
    rb"(?:"
    + b"|".join(name.encode() for name in sorted(MUTATING_METHODS))
    + rb"|[A-Za-z]\w*"
    + IN_PLACE_SUFFIX.encode()
    + rb")"
)


def is_mutating_method(name: str) -> bool:
    """``append`` and friends, and torch's in-place ``add_`` style methods."""
    return name in MUTATING_METHODS or (name.endswith(IN_PLACE_SUFFIX) and not name.startswith("_"))


def method_mutation(name: str) -> Mutation | None:
    """What calling the method ``name`` does to the object it is called on, or None: the one
    table of mutating methods that both tiers (the scope tree, ``index.change_walk``) read."""
    if not is_mutating_method(name):
        return None
    return Mutation(MutationKind.METHOD, name, memoises=name in MEMOISING_METHODS)


def _all_params(params: cst.Parameters) -> Iterator[cst.Param]:
    yield from params.posonly_params
    yield from params.params
    if isinstance(params.star_arg, cst.Param):
        yield params.star_arg
    yield from params.kwonly_params
    if params.star_kwarg is not None:
        yield params.star_kwarg


def all_params(params: cst.Parameters) -> list[cst.Param]:
    """Every parameter of a def or lambda, in declaration order."""
    return list(_all_params(params))
