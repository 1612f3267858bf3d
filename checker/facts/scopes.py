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
``xs.append(v)``).
"""

from __future__ import annotations

import enum
from collections.abc import Iterator, Sequence
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
    #: The (statement, branch) pairs of the if/try/match branches it sits in.
    branches: tuple[tuple[cst.CSTNode, int], ...] = ()
    in_loop: bool = False

    def exclusive_with(self, other: Binding) -> bool:
        """Whether the two bindings sit in different branches of one if/try/match."""
        mine = dict(self.branches)
        return any(statement in mine and mine[statement] != branch for statement, branch in other.branches)


@dataclass(eq=False)
class Read:
    """A load of a name. ``mutation`` describes how the read object is changed, if it is."""

    name: str
    node: cst.Name
    scope: Scope
    mutation: str | None = None


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
        """This scope and every scope nested in it."""
        yield self
        for child in self.children:
            yield from child.walk()

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
    _calls_by_scope: dict[Scope, list[tuple[cst.Call, Scope]]] | None = None

    @classmethod
    def build(cls, module: cst.Module) -> ScopeTree:
        return _Builder(module).tree

    def owner(self, scope: Scope, name: str) -> Scope | None:
        """The scope whose binding of ``name`` a read in ``scope`` sees; None for builtins."""
        if scope.kind is ScopeKind.MODULE:
            return scope if name in scope.bindings or scope.star_import else None
        if name in scope.declared_global:
            return self.module
        if name in scope.declared_nonlocal:
            return self._free(scope.parent, name)
        if name in scope.bindings:
            return scope
        return self._free(scope.parent, name)

    def _free(self, scope: Scope | None, name: str) -> Scope | None:
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

    def reads_of(self, owner: Scope, name: str) -> Iterator[Read]:
        """Every read anywhere in the module that sees ``owner``'s ``name``."""
        for scope in self.module.walk():
            for read in scope.reads:
                if read.name == name and self.owner(scope, name) is owner:
                    yield read


#: Methods that change the object they are called on.
MUTATING_METHODS = frozenset(
    {
        "append", "extend", "insert", "pop", "remove", "clear", "update", "setdefault",
        "popitem", "add", "discard", "sort", "reverse", "appendleft", "extendleft",
        "popleft", "__setitem__", "__delitem__", "fill", "resize", "put",
    }
)  # fmt: skip


def is_mutating_method(name: str) -> bool:
    """``append`` and friends, and torch's in-place ``add_`` style methods."""
    return name in MUTATING_METHODS or (name.endswith("_") and not name.startswith("_"))


_COMPREHENSIONS = (cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp)


class _Builder:
    def __init__(self, module: cst.Module) -> None:
        root = Scope(ScopeKind.MODULE, module, None, "<module>")
        self.tree = ScopeTree(root, {module: root}, [], [], set(), {})
        self.scope = root
        self._branches: list[tuple[cst.CSTNode, int]] = []
        self._loops = 0
        self._statements(module.body)
        for scope in root.walk():
            self._redirect(scope)

    # -- scopes -------------------------------------------------------------

    def _enter(self, kind: ScopeKind, node: cst.CSTNode, name: str) -> Scope:
        scope = Scope(kind, node, self.scope, name)
        self.scope.children.append(scope)
        self.tree.scope_of[node] = scope
        return scope

    def _enter_body(self, kind: ScopeKind, node: cst.CSTNode, name: str) -> tuple[Scope, list, int]:
        """Enter a def, lambda or class body: branches and loops outside it do not apply inside."""
        saved = (self.scope, self._branches, self._loops)
        self.scope = self._enter(kind, node, name)
        self._branches, self._loops = [], 0
        return saved

    def _leave_body(self, saved: tuple[Scope, list, int]) -> None:
        self.scope, self._branches, self._loops = saved

    def _in_branch(self, statement: cst.CSTNode, branch: int, node: cst.CSTNode | None) -> None:
        if node is None:
            return
        self._branches.append((statement, branch))
        self._visit(node)
        self._branches.pop()

    def _in_loop(self, node: cst.CSTNode | None) -> None:
        if node is None:
            return
        self._loops += 1
        self._visit(node)
        self._loops -= 1

    def _if(self, node: cst.If) -> None:
        self._visit(node.test)
        self._in_branch(node, 0, node.body)
        self._in_branch(node, 1, node.orelse)

    def _try(self, node: cst.Try | cst.TryStar) -> None:
        self._in_branch(node, 0, node.body)
        for index, handler in enumerate(node.handlers, 1):
            self._in_branch(node, index, handler)
        self._in_branch(node, 0, node.orelse)
        if node.finalbody is not None:
            self._visit(node.finalbody)

    def _while(self, node: cst.While) -> None:
        self._visit(node.test)
        self._in_loop(node.body)
        if node.orelse is not None:
            self._visit(node.orelse)

    def _redirect(self, scope: Scope) -> None:
        """Move bindings of ``global``/``nonlocal`` names to the scope that owns them."""
        for binding in scope.redirected:
            owner = (
                self.tree.module
                if binding.name in scope.declared_global
                else self.tree._free(scope.parent, binding.name)
            )
            if owner is not None:
                owner.bindings.setdefault(binding.name, []).append(binding)

    def _bind(self, name: str, node: cst.CSTNode, kind: BindingKind, **details: object) -> Binding:
        scope = self.scope
        if kind is BindingKind.WALRUS:
            while scope.kind is ScopeKind.COMPREHENSION and scope.parent is not None:
                scope = scope.parent
        binding = Binding(name, node, kind, self.scope, **details)  # type: ignore[arg-type]
        binding.branches = tuple(self._branches)
        binding.in_loop = self._loops > 0
        if name in scope.declared_global or name in scope.declared_nonlocal:
            scope.redirected.append(binding)
        else:
            scope.bindings.setdefault(name, []).append(binding)
        return binding

    def _read(self, node: cst.Name, mutation: str | None = None) -> Read:
        read = Read(node.value, node, self.scope, mutation)
        self.scope.reads.append(read)
        return read

    # -- statements ---------------------------------------------------------

    def _statements(self, body: Sequence[cst.CSTNode]) -> None:
        for statement in body:
            self._visit(statement)

    def _visit(self, node: cst.CSTNode) -> None:
        handler = _HANDLERS.get(type(node))
        if handler is not None:
            handler(self, node)
            return
        if isinstance(node, cst.Name):
            self._read(node)
            return
        for child in node.children:
            self._visit(child)

    def _function(self, node: cst.FunctionDef) -> None:
        for decorator in node.decorators:
            self._visit(decorator.decorator)
        defaults = self._defaults(node.params)
        self.tree.default_reads[node] = defaults
        self._bind(node.name.value, node.name, BindingKind.FUNCTION, definition=node)
        self.tree.definitions.append((node, self.scope))
        outer = self._enter_body(ScopeKind.FUNCTION, node, node.name.value)
        self._parameters(node.params)
        self._visit(node.body)
        self._leave_body(outer)

    def _lambda(self, node: cst.Lambda) -> None:
        self.tree.default_reads[node] = self._defaults(node.params)
        outer = self._enter_body(ScopeKind.LAMBDA, node, "<lambda>")
        self._parameters(node.params)
        self._visit(node.body)
        self._leave_body(outer)

    def _defaults(self, params: cst.Parameters) -> list[Read]:
        before = len(self.scope.reads)
        for param in _all_params(params):
            if param.default is not None:
                self._visit(param.default)
        return self.scope.reads[before:]

    def _parameters(self, params: cst.Parameters) -> None:
        for param in _all_params(params):
            self._bind(param.name.value, param.name, BindingKind.PARAMETER, annotation=_annotation(param.annotation))

    def _class(self, node: cst.ClassDef) -> None:
        for decorator in node.decorators:
            self._visit(decorator.decorator)
        for arg in (*node.bases, *node.keywords):
            self._visit(arg.value)
        self._bind(node.name.value, node.name, BindingKind.CLASS, definition=node)
        self.tree.definitions.append((node, self.scope))
        outer = self._enter_body(ScopeKind.CLASS, node, node.name.value)
        self._visit(node.body)
        self._leave_body(outer)

    def _assign(self, node: cst.Assign) -> None:
        if isinstance(node.value, cst.Call) and len(node.targets) == 1:
            self.tree.assigned_calls[node.value] = node.targets[0].target
        self._visit(node.value)
        for target in node.targets:
            self._target(target.target, BindingKind.ASSIGN, node.value)

    def _ann_assign(self, node: cst.AnnAssign) -> None:
        if node.value is not None:
            self._visit(node.value)
        self._target(node.target, BindingKind.ANNOTATION, node.value, node.annotation.annotation)

    def _aug_assign(self, node: cst.AugAssign) -> None:
        self._visit(node.value)
        target = node.target
        if isinstance(target, cst.Name):
            self._read(target)
            self._bind(target.value, target, BindingKind.AUGMENTED, value=None)
        else:
            self._target(target, BindingKind.AUGMENTED, None)

    def _target(
        self,
        target: cst.BaseExpression,
        kind: BindingKind,
        value: cst.BaseExpression | None,
        annotation: cst.BaseExpression | None = None,
    ) -> None:
        if isinstance(target, cst.Name):
            self._bind(target.value, target, kind, value=value, annotation=annotation)
        elif isinstance(target, (cst.Tuple, cst.List)):
            values = _unpacked(target, value)
            for element, element_value in zip(target.elements, values):
                self._target(element.value, kind, element_value)
        elif isinstance(target, cst.StarredElement):
            self._target(target.value, kind, None)
        elif isinstance(target, cst.Attribute):
            self._mutated_base(target.value, f"assigns its attribute '{target.attr.value}'")
            if isinstance(target.value, cst.Name):
                self.scope.attribute_stores.append(
                    AttributeStore(target.value.value, target.attr.value, value, target)
                )
        elif isinstance(target, cst.Subscript):
            self._mutated_base(target.value, "assigns one of its items")
            for element in target.slice:
                self._visit(element)
        else:
            self._visit(target)

    def _mutated_base(self, base: cst.BaseExpression, how: str) -> None:
        if isinstance(base, cst.Name):
            self._read(base, mutation=how)
        else:
            self._visit(base)

    def _for(self, node: cst.For) -> None:
        self._visit(node.iter)
        self._target(node.target, BindingKind.LOOP, None)
        self._in_loop(node.body)
        if node.orelse is not None:
            self._visit(node.orelse)

    def _with(self, node: cst.With) -> None:
        for item in node.items:
            self._visit(item.item)
            if item.asname is not None:
                self._target(item.asname.name, BindingKind.WITH, None)
        self._visit(node.body)

    def _except(self, node: cst.ExceptHandler | cst.ExceptStarHandler) -> None:
        if node.type is not None:
            self._visit(node.type)
        if node.name is not None and isinstance(node.name.name, cst.Name):
            self._bind(node.name.name.value, node.name.name, BindingKind.EXCEPT)
        self._visit(node.body)

    def _import(self, node: cst.Import) -> None:
        for alias in node.names:
            dotted = _dotted(alias.name)
            if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                self._bind(alias.asname.name.value, alias.asname.name, BindingKind.IMPORT, imported=dotted)
            else:
                top = dotted.split(".")[0]
                self._bind(top, alias.name, BindingKind.IMPORT, imported=top)

    def _import_from(self, node: cst.ImportFrom) -> None:
        module = "." * len(node.relative) + (_dotted(node.module) if node.module is not None else "")
        if isinstance(node.names, cst.ImportStar):
            self.scope.star_import = True
            return
        separator = "" if module.endswith(".") else "."
        for alias in node.names:
            name = _dotted(alias.name)
            bound = alias.asname.name if alias.asname is not None else alias.name
            if isinstance(bound, cst.Name):
                self._bind(bound.value, bound, BindingKind.IMPORT, imported=f"{module}{separator}{name}")

    def _global(self, node: cst.Global) -> None:
        self.scope.declared_global.update(item.name.value for item in node.names)

    def _nonlocal(self, node: cst.Nonlocal) -> None:
        self.scope.declared_nonlocal.update(item.name.value for item in node.names)

    def _del(self, node: cst.Del) -> None:
        self._delete(node.target)

    def _delete(self, target: cst.BaseExpression) -> None:
        if isinstance(target, cst.Name):
            self._bind(target.value, target, BindingKind.DELETE)
        elif isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                self._delete(element.value)
        elif isinstance(target, (cst.Attribute, cst.Subscript)):
            self._mutated_base(target.value, "deletes part of it")
            if isinstance(target, cst.Subscript):
                for element in target.slice:
                    self._visit(element)
        else:
            self._visit(target)

    def _named_expr(self, node: cst.NamedExpr) -> None:
        self._visit(node.value)
        if isinstance(node.target, cst.Name):
            self._bind(node.target.value, node.target, BindingKind.WALRUS, value=node.value)

    def _comprehension(self, node: cst.ListComp | cst.SetComp | cst.GeneratorExp | cst.DictComp) -> None:
        first = node.for_in
        self._visit(first.iter)
        outer = self.scope
        self.scope = self._enter(ScopeKind.COMPREHENSION, node, "<comprehension>")
        comp: cst.CompFor | None = first
        while comp is not None:
            if comp is not first:
                self._visit(comp.iter)
            self._target(comp.target, BindingKind.LOOP, None)
            for condition in comp.ifs:
                self._visit(condition.test)
            comp = comp.inner_for_in
        if isinstance(node, cst.DictComp):
            self._visit(node.key)
            self._visit(node.value)
        else:
            self._visit(node.elt)
        self.scope = outer

    def _call(self, node: cst.Call) -> None:
        self.tree.calls.append((node, self.scope))
        func = node.func
        if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and is_mutating_method(func.attr.value):
            self._read(func.value, mutation=f"calls its .{func.attr.value}() method")
        else:
            self._visit(func)
        for arg in node.args:
            self._visit(arg.value)

    def _attribute(self, node: cst.Attribute) -> None:
        self._visit(node.value)

    def _expr(self, node: cst.Expr) -> None:
        if isinstance(node.value, cst.Call):
            self.tree.discarded_calls.add(node.value)
        self._visit(node.value)

    def _return(self, node: cst.Return) -> None:
        if node.value is not None:
            self.scope.returns.append(node.value)
            self._visit(node.value)

    def _match(self, node: cst.Match) -> None:
        self._visit(node.subject)
        for index, case in enumerate(node.cases):
            self._branches.append((node, index))
            self._pattern(case.pattern)
            if case.guard is not None:
                self._visit(case.guard)
            self._visit(case.body)
            self._branches.pop()

    def _pattern(self, pattern: cst.CSTNode) -> None:
        if isinstance(pattern, cst.MatchAs):
            if pattern.pattern is not None:
                self._pattern(pattern.pattern)
            if pattern.name is not None:
                self._bind(pattern.name.value, pattern.name, BindingKind.MATCH)
        elif isinstance(pattern, cst.MatchStar):
            if pattern.name is not None:
                self._bind(pattern.name.value, pattern.name, BindingKind.MATCH)
        elif isinstance(pattern, cst.MatchMapping):
            for element in pattern.elements:
                self._visit(element.key)
                self._pattern(element.pattern)
            if pattern.rest is not None:
                self._bind(pattern.rest.value, pattern.rest, BindingKind.MATCH)
        elif isinstance(pattern, cst.MatchClass):
            self._visit(pattern.cls)
            for element in pattern.patterns:
                self._pattern(element.value)
            for keyword in pattern.kwds:
                self._pattern(keyword.pattern)
        elif isinstance(pattern, cst.MatchValue):
            self._visit(pattern.value)
        else:
            for child in pattern.children:
                self._pattern(child)

    def _type_alias(self, node: cst.CSTNode) -> None:
        name = getattr(node, "name", None)
        if isinstance(name, cst.Name):
            self._bind(name.value, name, BindingKind.TYPE)

    def _skip(self, node: cst.CSTNode) -> None:
        """Annotations and other text that is not evaluated when the function runs."""


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


def _annotation(annotation: cst.Annotation | None) -> cst.BaseExpression | None:
    return None if annotation is None else annotation.annotation


def _unpacked(
    target: cst.Tuple | cst.List, value: cst.BaseExpression | None
) -> list[cst.BaseExpression | None]:
    """Pair ``a, b = x, y`` element-wise; unknown when shapes differ or star is used."""
    count = len(target.elements)
    if (
        isinstance(value, (cst.Tuple, cst.List))
        and len(value.elements) == count
        and not any(isinstance(e, cst.StarredElement) for e in (*value.elements, *target.elements))
    ):
        return [element.value for element in value.elements]
    return [None] * count


def _dotted(node: cst.BaseExpression) -> str:
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        return f"{_dotted(node.value)}.{node.attr.value}"
    return ""


_HANDLERS = {
    cst.FunctionDef: _Builder._function,
    cst.Lambda: _Builder._lambda,
    cst.ClassDef: _Builder._class,
    cst.Assign: _Builder._assign,
    cst.AnnAssign: _Builder._ann_assign,
    cst.AugAssign: _Builder._aug_assign,
    cst.For: _Builder._for,
    cst.While: _Builder._while,
    cst.If: _Builder._if,
    cst.Try: _Builder._try,
    cst.TryStar: _Builder._try,
    cst.With: _Builder._with,
    cst.ExceptHandler: _Builder._except,
    cst.ExceptStarHandler: _Builder._except,
    cst.Import: _Builder._import,
    cst.ImportFrom: _Builder._import_from,
    cst.Global: _Builder._global,
    cst.Nonlocal: _Builder._nonlocal,
    cst.Del: _Builder._del,
    cst.NamedExpr: _Builder._named_expr,
    cst.Call: _Builder._call,
    cst.Attribute: _Builder._attribute,
    cst.Expr: _Builder._expr,
    cst.Return: _Builder._return,
    cst.Match: _Builder._match,
    cst.Annotation: _Builder._skip,
    cst.Arg: lambda self, node: self._visit(node.value),
    **{kind: _Builder._comprehension for kind in _COMPREHENSIONS},
}
if hasattr(cst, "TypeAlias"):
    _HANDLERS[cst.TypeAlias] = _Builder._type_alias
