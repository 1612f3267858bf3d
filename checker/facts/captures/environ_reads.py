"""Reads of an environment variable at call time: ``os.environ.get("K")``, ``os.environ["K"]``,
``os.getenv("K")``, ``"K" in os.environ``, and the same through ``from os import environ, getenv``.

A registered function reads the variable once, while compiling, and keeps what it read
(evidence/dynamo/FINDINGS.md S§1b), so the read is state when the project sets the
variable after import: ``os.environ["K"] = v``, ``os.environ.update(K=v)``,
``os.environ.setdefault("K", v)``, ``os.environ.pop("K")``, ``os.putenv("K", v)``,
``monkeypatch.setenv("K", v)``, in a function of this module or anywhere in another
(:meth:`ImportedState.environment`). A variable the project never sets is read as the
process started with it: not reported. A key that is not a literal names no variable.
"""

from __future__ import annotations

import libcst as cst

from checker.facts.captures.attribute_writes import AttributeWrites, literal
from checker.facts.captures.capture import Capture, Holder, Source
from checker.facts.captures.changes import Change, ChangeKind, ImportedState
from checker.facts.kinds.inference import Inference
from checker.facts.kinds.kind import Inferred, Kind
from checker.facts.registrations.targets import Body
from checker.facts.scopes.tree import MutationKind, Read, Scope

_ENVIRON = "os.environ"
_GETENV = "os.getenv"
#: Calls that set or remove the variable named first: of ``os``, and whatever ``setenv`` is
#: called on (pytest's ``monkeypatch``).
_OS_SETTERS = frozenset({"os.putenv", "os.unsetenv"})
_SETTER_METHODS = frozenset({"setenv", "delenv"})
_KEYED_METHODS = frozenset({"setdefault", "pop", "__setitem__", "__delitem__"})


def environment_read(
    body: Body,
    read: Read,
    parents: dict[cst.CSTNode, cst.CSTNode],
    inference: Inference,
    index: ImportedState | None,
    writes: AttributeWrites,
) -> Capture | None:
    """The capture of an environment variable read at ``read`` (``os`` of ``os.environ.get``),
    when the project sets the variable after import; else None."""
    found = _variable(read.node, parents, inference, read.scope)
    if found is None:
        return None
    node, key = found
    change = _local(key, inference, writes)
    if change is None and index is not None:
        change = index.environment(key, inference.path)
    if change is None:
        return None
    return Capture(body, node, key, Source(Holder.ENVIRONMENT), Inferred(Kind.IMMUTABLE), None, None, change)


def _variable(
    name: cst.Name, parents: dict[cst.CSTNode, cst.CSTNode], inference: Inference, scope: Scope
) -> tuple[cst.CSTNode, str] | None:
    """The read expression and the variable's name."""
    expr: cst.CSTNode = name
    while True:
        qualified = inference.qualified_names(expr, scope) if isinstance(expr, cst.BaseExpression) else set()
        parent = parents.get(expr)
        if _ENVIRON in qualified:
            return _of_environ(expr, parent, parents)
        if _GETENV in qualified:
            return _called(expr, parent)
        if not (isinstance(parent, cst.Attribute) and parent.value is expr):
            return None
        expr = parent


def _of_environ(
    environ: cst.CSTNode, parent: cst.CSTNode | None, parents: dict[cst.CSTNode, cst.CSTNode]
) -> tuple[cst.CSTNode, str] | None:
    if isinstance(parent, cst.Subscript) and len(parent.slice) == 1 and isinstance(parent.slice[0].slice, cst.Index):
        key = literal(parent.slice[0].slice.value)
        return (parent, key) if key is not None else None
    if isinstance(parent, cst.Attribute) and parent.attr.value == "get":
        return _called(parent, parents.get(parent))
    if isinstance(parent, cst.ComparisonTarget) and isinstance(parent.operator, (cst.In, cst.NotIn)):
        comparison = parents.get(parent)
        if isinstance(comparison, cst.Comparison) and len(comparison.comparisons) == 1:
            key = literal(comparison.left)
            return (comparison, key) if key is not None else None
    return None


def _called(func: cst.CSTNode, call: cst.CSTNode | None) -> tuple[cst.CSTNode, str] | None:
    if isinstance(call, cst.Call) and call.func is func and call.args:
        key = literal(call.args[0].value)
        return (call, key) if key is not None else None
    return None


def _local(key: str, inference: Inference, writes: AttributeWrites) -> Change | None:
    """Where this module sets ``key`` after import."""
    for write in writes.all():
        if not write.later or not _is_environ(write.root, write.path, inference, write.scope):
            continue
        mutation = write.mutation
        if mutation.kind in (MutationKind.ITEM, MutationKind.DELETE) and write.key == key:
            return Change(ChangeKind.ENVIRONMENT, write.node)
        if mutation.kind is MutationKind.METHOD and _method_sets(write.node, mutation.name, key):
            return Change(ChangeKind.ENVIRONMENT, write.node)
    tree = writes.tree
    for call, scope in tree.calls:
        if scope.enclosing_function() is None or not call.args or literal(call.args[0].value) != key:
            continue
        func = call.func
        setter = isinstance(func, cst.Attribute) and func.attr.value in _SETTER_METHODS
        if setter or inference.qualified_names(func, scope) & _OS_SETTERS:
            return Change(ChangeKind.ENVIRONMENT, call)
    return None


def _is_environ(root: cst.Name, path: tuple[str, ...], inference: Inference, scope: Scope) -> bool:
    return any(".".join([qualified, *path]) == _ENVIRON for qualified in inference.qualified_names(root, scope))


def _method_sets(node: cst.CSTNode, method: str, key: str) -> bool:
    if not isinstance(node, cst.Call):
        return False
    if method in _KEYED_METHODS:
        return bool(node.args) and node.args[0].keyword is None and literal(node.args[0].value) == key
    if method == "clear":
        return True
    if method == "update":
        keys: set[str | None] = {arg.keyword.value for arg in node.args if arg.keyword is not None}
        for arg in node.args:
            if arg.keyword is None and isinstance(arg.value, cst.Dict):
                keys |= {literal(element.key) for element in arg.value.elements if isinstance(element, cst.DictElement)}
        return key in keys
    return False
