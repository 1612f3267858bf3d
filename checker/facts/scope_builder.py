"""The single pass over a libcst module that builds a ``ScopeTree``.

Statements and expressions with scoping consequences have a handler; everything
else is walked generically, with any ``Name`` it reaches counted as a read.
"""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

from checker.facts.scopes import (
    AttributeStore,
    Binding,
    BindingKind,
    Mutation,
    MutationKind,
    Read,
    Scope,
    ScopeKind,
    ScopeTree,
    all_params,
    is_mutating_method,
)


def build_tree(module: cst.Module) -> ScopeTree:
    return _Builder(module).tree


_COMPREHENSIONS = (cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp)


class _Builder:
    def __init__(self, module: cst.Module) -> None:
        root = Scope(ScopeKind.MODULE, module, None, "<module>")
        self.tree = ScopeTree(root, {module: root}, [], [], set(), {})
        self.scope = root
        self._branches: list[tuple[cst.CSTNode, int]] = []
        self._loops = 0
        #: (container, key) pairs known to be missing here: ``if key not in cache:``
        self._missing: list[tuple[str, str]] = []
        self._main = 0  # depth of ``if __name__ == "__main__":`` blocks
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
        missing = _missing_key(node.test)
        main = _is_main_guard(node.test)
        if missing is not None:
            self._missing.append(missing)
        self._main += main
        self._in_branch(node, 0, node.body)
        self._main -= main
        if missing is not None:
            self._missing.pop()
        self._in_branch(node, 1, node.orelse)

    def _fills_missing(self, target: cst.Subscript) -> bool:
        """``cache[key] = v`` under ``if key not in cache:``, or after ``if key in cache: return``."""
        if not isinstance(target.value, cst.Name) or len(target.slice) != 1:
            return False
        key = target.slice[0].slice
        if not isinstance(key, cst.Index):
            return False
        return (target.value.value, _code(key.value)) in self._missing

    def _try(self, node: cst.Try | cst.TryStar) -> None:
        self._in_branch(node, 0, node.body)
        looked_up = _item_reads(node.body)
        for index, handler in enumerate(node.handlers, 1):
            missing = looked_up if _catches_key_error(handler) else []
            self._missing += missing
            self._in_branch(node, index, handler)
            del self._missing[len(self._missing) - len(missing) :]
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
                else self.tree.free_owner(scope.parent, binding.name)
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
        binding.in_main = self._main > 0
        if name in scope.declared_global or name in scope.declared_nonlocal:
            scope.redirected.append(binding)
        else:
            scope.bindings.setdefault(name, []).append(binding)
        return binding

    def _read(self, node: cst.Name, mutation: Mutation | None = None) -> Read:
        read = Read(node.value, node, self.scope, mutation, self._loops > 0, self._main > 0)
        self.scope.reads.append(read)
        return read

    # -- statements ---------------------------------------------------------

    def _statements(self, body: Sequence[cst.CSTNode]) -> None:
        guards = 0
        for statement in body:
            self._visit(statement)
            present = _returns_when_present(statement)
            if present is not None:  # ``if key in cache: return cache[key]``: the rest fills it in
                self._missing.append(present)
                guards += 1
        del self._missing[len(self._missing) - guards :]

    def _block(self, node: cst.IndentedBlock) -> None:
        self._statements(node.body)

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
        for param in all_params(params):
            if param.default is not None:
                self._visit(param.default)
        return self.scope.reads[before:]

    def _parameters(self, params: cst.Parameters) -> None:
        for param in all_params(params):
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
            for element, element_value in zip(target.elements, values, strict=True):
                self._target(element.value, kind, element_value)
        elif isinstance(target, cst.StarredElement):
            self._target(target.value, kind, None)
        elif isinstance(target, cst.Attribute):
            self._mutated_base(target.value, Mutation(MutationKind.ATTRIBUTE, target.attr.value))
            if isinstance(target.value, cst.Name):
                self.scope.attribute_stores.append(AttributeStore(target.value.value, target.attr.value, value, target))
        elif isinstance(target, cst.Subscript):
            self._mutated_base(target.value, Mutation(MutationKind.ITEM, memoises=self._fills_missing(target)))
            for element in target.slice:
                self._visit(element)
        else:
            self._visit(target)

    def _mutated_base(self, base: cst.BaseExpression, how: Mutation) -> None:
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
                self._bind(
                    bound.value, bound, BindingKind.IMPORT, imported=f"{module}{separator}{name}", statement=node
                )

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
            self._mutated_base(target.value, Mutation(MutationKind.DELETE))
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
            method = func.attr.value
            self._read(func.value, mutation=Mutation(MutationKind.METHOD, method, memoises=method == "setdefault"))
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


def _code(node: cst.CSTNode) -> str:
    return cst.Module([]).code_for_node(node)


def _item_reads(block: cst.CSTNode) -> list[tuple[str, str]]:
    """``cache[key]`` looked up in a ``try`` body: (cache, key) pairs."""
    found = []
    stack = [block]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Subscript) and isinstance(node.value, cst.Name) and len(node.slice) == 1:
            index = node.slice[0].slice
            if isinstance(index, cst.Index):
                found.append((node.value.value, _code(index.value)))
        stack.extend(node.children)
    return found


def _catches_key_error(handler: cst.ExceptHandler | cst.ExceptStarHandler) -> bool:
    """``except KeyError:`` (alone or in a tuple): the key was missing."""
    kind = handler.type
    names = [element.value for element in kind.elements] if isinstance(kind, cst.Tuple) else [kind]
    return any(isinstance(name, cst.Name) and name.value in ("KeyError", "LookupError") for name in names)


def _is_main_guard(test: cst.BaseExpression) -> bool:
    """``__name__ == "__main__"``."""
    return (
        isinstance(test, cst.Comparison)
        and isinstance(test.left, cst.Name)
        and test.left.value == "__name__"
        and len(test.comparisons) == 1
        and isinstance(test.comparisons[0].operator, cst.Equal)
        and isinstance(test.comparisons[0].comparator, cst.SimpleString)
        and test.comparisons[0].comparator.evaluated_value == "__main__"
    )


def _missing_key(test: cst.BaseExpression) -> tuple[str, str] | None:
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


def _returns_when_present(statement: cst.CSTNode) -> tuple[str, str] | None:
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


def _annotation(annotation: cst.Annotation | None) -> cst.BaseExpression | None:
    return None if annotation is None else annotation.annotation


def _unpacked(target: cst.Tuple | cst.List, value: cst.BaseExpression | None) -> list[cst.BaseExpression | None]:
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
    cst.IndentedBlock: _Builder._block,
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
