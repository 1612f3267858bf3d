"""The scope builder's handlers of statements: defs and classes, assignments, loops,
branches, ``try``, ``with``, imports, ``global``/``nonlocal``, ``del``, ``return`` and
``match``. Branches and loops are recorded on the bindings made inside them.
"""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

from checker.facts.scopes.memo_guards import (
    catches_key_error,
    item_reads,
    missing_key,
    present_key,
    returns_when_present,
)
from checker.facts.scopes.syntax import children
from checker.facts.scopes.tree import BindingKind, Mutation, MutationKind, ScopeKind
from checker.facts.scopes.walker import Handlers, ScopeWalker
from checker.reading.forms import OTHER, Comparison, Operand, is_main_guard


class StatementHandlers(ScopeWalker):
    """Visits the statements that bind names, open a scope or branch."""

    def _statements(self, body: Sequence[cst.CSTNode]) -> None:
        guards = 0
        for statement in body:
            self._visit(statement)
            present = returns_when_present(statement, self._got)
            if present is not None:  # ``if key in cache: return cache[key]``: the rest fills it in
                self._missing.append(present)
                guards += 1
        del self._missing[len(self._missing) - guards :]

    def _block(self, node: cst.IndentedBlock) -> None:
        self._statements(node.body)

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
            self._sources[target] = node.value
        else:
            self._target(target, BindingKind.AUGMENTED, None)

    def _if(self, node: cst.If) -> None:
        self._visit(node.test)
        missing, present = missing_key(node.test, self._got), present_key(node.test, self._got)
        main = is_main_guard(comparison_of(node.test))
        if missing is not None:
            self._missing.append(missing)
        self._main += main
        self._in_branch(node, 0, node.body)
        self._main -= main
        if missing is not None:
            self._missing.pop()
        if present is not None:  # ``if key in cache: ... else:``: missing in the else
            self._missing.append(present)
        self._in_branch(node, 1, node.orelse)
        if present is not None:
            self._missing.pop()

    def _try(self, node: cst.Try | cst.TryStar) -> None:
        self._in_branch(node, 0, node.body)
        looked_up = item_reads(node.body)
        handlers: Sequence[cst.ExceptHandler | cst.ExceptStarHandler] = node.handlers
        for index, handler in enumerate(handlers, 1):
            missing = looked_up if catches_key_error(handler) else []
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

    def _for(self, node: cst.For) -> None:
        self._visit(node.iter)
        self._target(node.target, BindingKind.LOOP, None)
        for bound in _target_names(node.target):
            self._sources[bound] = node.iter
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
                for index in target.slice:
                    self._visit(index)
        else:
            self._visit(target)

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
            for positional in pattern.patterns:
                self._pattern(positional.value)
            for keyword in pattern.kwds:
                self._pattern(keyword.pattern)
        elif isinstance(pattern, cst.MatchValue):
            self._visit(pattern.value)
        else:
            for child in children(pattern):
                self._pattern(child)

    def _type_alias(self, node: cst.CSTNode) -> None:
        name = getattr(node, "name", None)
        if isinstance(name, cst.Name):
            self._bind(name.value, name, BindingKind.TYPE, value=getattr(node, "value", None))


def comparison_of(test: cst.BaseExpression) -> Comparison | None:
    """libcst's ``test`` described for :mod:`checker.reading.forms`, as the cheap tier's
    ``mentions.comparison_of`` describes CPython's: a comparison of two operands, else None."""
    if not (isinstance(test, cst.Comparison) and len(test.comparisons) == 1):
        return None
    (target,) = test.comparisons
    return Comparison(isinstance(target.operator, cst.Equal), _operand(test.left), _operand(target.comparator))


def _operand(expr: cst.BaseExpression) -> Operand:
    """A name, or a string constant by the text it spells (any quotes, brackets or implicit
    concatenation): what CPython's tree holds for it."""
    if isinstance(expr, cst.Name):
        return Operand(name=expr.value)
    if isinstance(expr, (cst.SimpleString, cst.ConcatenatedString)):
        # None for a concatenation with an f-string, bytes for b"...": neither is a str constant.
        value = expr.evaluated_value
        if isinstance(value, str):
            return Operand(text=value)
    return OTHER


def _target_names(target: cst.BaseExpression) -> list[cst.Name]:
    """The names a loop target binds (``i``, ``i, (a, b)``, ``*rest``)."""
    if isinstance(target, cst.Name):
        return [target]
    if isinstance(target, (cst.Tuple, cst.List)):
        return [name for element in target.elements for name in _target_names(element.value)]
    if isinstance(target, cst.StarredElement):
        return _target_names(target.value)
    return []


def _dotted(node: cst.BaseExpression) -> str:
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        return f"{_dotted(node.value)}.{node.attr.value}"
    return ""


STATEMENT_HANDLERS: Handlers = {
    cst.IndentedBlock: StatementHandlers._block,
    cst.FunctionDef: StatementHandlers._function,
    cst.ClassDef: StatementHandlers._class,
    cst.Assign: StatementHandlers._assign,
    cst.AnnAssign: StatementHandlers._ann_assign,
    cst.AugAssign: StatementHandlers._aug_assign,
    cst.For: StatementHandlers._for,
    cst.While: StatementHandlers._while,
    cst.If: StatementHandlers._if,
    cst.Try: StatementHandlers._try,
    cst.TryStar: StatementHandlers._try,
    cst.With: StatementHandlers._with,
    cst.ExceptHandler: StatementHandlers._except,
    cst.ExceptStarHandler: StatementHandlers._except,
    cst.Import: StatementHandlers._import,
    cst.ImportFrom: StatementHandlers._import_from,
    cst.Global: StatementHandlers._global,
    cst.Nonlocal: StatementHandlers._nonlocal,
    cst.Del: StatementHandlers._del,
    cst.Expr: StatementHandlers._expr,
    cst.Return: StatementHandlers._return,
    cst.Match: StatementHandlers._match,
}
if hasattr(cst, "TypeAlias"):
    STATEMENT_HANDLERS[cst.TypeAlias] = StatementHandlers._type_alias
