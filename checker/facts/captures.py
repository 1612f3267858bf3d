"""What a registered body reads that is not one of its arguments.

A capture is a read, inside the body (nested defs, lambdas and comprehensions
included), of a name bound outside it: a closure cell, a module global, or, for a
bound method, an attribute of ``self``. Default values are captures too: they are
evaluated once, when the def runs. Each capture carries the inferred kind of what
it reads, how the read uses it (``.tolist()``, ``.shape``, ``float(...)``) and, for
state that is not a tensor, the reason it can change after compilation.

Calls are followed into helpers, a few calls deep: defs of this module and, through an
import, top-level defs of other modules of the project. A capture in another module's
helper is reported at the call in this module that leads there, and what the message
cites in the other module is written out as text (``helpers.py:3``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import cached_property
from typing import NamedTuple

import libcst as cst

from checker import torch_api as api
from checker.facts.foreign_helpers import Places, imported_helpers
from checker.facts.inference import Inference
from checker.facts.kinds import Inferred, Kind
from checker.facts.scopes import Binding, BindingKind, Read, Scope, ScopeKind, ScopeTree, all_params
from checker.facts.targets import Body

_NOT_STATE = (Kind.FUNCTION, Kind.CLASS, Kind.PYMODULE, Kind.PARTIAL)
#: How many helper calls deep captures are followed from a registered body.
HELPER_DEPTH = 3
#: The origin of a default value; the rules word those captures differently.
DEFAULT_ORIGIN = "a default argument"


class Link(NamedTuple):
    """One call on the way from a registered body to the helper that reads the state.

    ``call`` is the call node when it is in the checked module, else where it is as text
    (``helpers.py:9``); ``defined`` says where a helper of another module is defined.
    """

    name: str
    call: cst.CSTNode | str
    defined: str | None = None


@dataclass(frozen=True, eq=False)
class Capture:
    """One read of captured state inside a registered body.

    ``node`` is the reported expression (``W``, ``self.w``, a default value),
    ``name`` how the message names it, ``origin`` where it comes from
    (``the module scope``), ``binding`` a node whose line the message can cite.
    ``laundering`` names the Python-value conversion applied to it, if any;
    ``change`` why non-tensor state can change after compilation, if it can.
    """

    body: Body
    node: cst.CSTNode
    name: str
    origin: str
    inferred: Inferred
    binding: cst.CSTNode | None = None
    laundering: str | None = None
    change: str | None = None
    change_node: cst.CSTNode | None = None
    #: For a read inside a helper: the registered function, and the calls that lead there.
    root: str | None = None
    chain: tuple[Link, ...] = ()

    @property
    def function(self) -> str:
        if self.root is not None:
            return self.root
        return self.body.label

    def lead(self) -> tuple[str | cst.CSTNode, ...]:
        """How a message starts: ``f: ``, ``f: calls helper() (line 9), which `` or, for a helper
        of another module, ``f: calls helper() (line 9), which is defined in helpers.py:4 and ``."""
        parts: list[str | cst.CSTNode] = [f"{self.function}: "]
        for link in self.chain:
            where = ("line ", link.call) if isinstance(link.call, cst.CSTNode) else (link.call,)
            parts += [f"calls {link.name}() (", *where, "), which "]
            if link.defined is not None:
                parts.append(f"is defined in {link.defined} and ")
        return tuple(parts)


class CaptureFinder:
    def __init__(self, tree: ScopeTree, inference: Inference) -> None:
        self.tree = tree
        self.inference = inference
        self._cache: dict[tuple[cst.CSTNode, bool], list[Capture]] = {}
        # Each capture rule asks again, and following helpers may parse and locate in other modules.
        self._followed: dict[tuple[cst.CSTNode, bool, frozenset[cst.CSTNode]], list[Capture]] = {}
        self._helper_calls: dict[tuple[cst.CSTNode, bool], list[tuple[cst.Call, Body, CaptureFinder]]] = {}
        #: The defs this module registers, once a helper of another module leads here.
        self.registered_here: frozenset[cst.CSTNode] | None = None

    @cached_property
    def places(self) -> Places:
        """Where this module's nodes are, for messages about a module whose helpers lead here."""
        return Places(self.tree, self.inference.path)

    def captures(self, body: Body, registered: frozenset[cst.CSTNode] = frozenset()) -> list[Capture]:
        """Captures of ``body`` and, with the call chain, of the helpers it calls.

        Helpers that are themselves ``registered`` are checked on their own.
        """
        key = (body.node, body.bound_self, registered)
        if key not in self._followed:
            root = body.label
            self._followed[key] = self._find(body) + self._through_helpers(
                self, body, root, (), {body.node}, registered
            )
        return self._followed[key]

    def _through_helpers(
        self,
        finder: CaptureFinder,
        body: Body,
        root: str,
        chain: tuple[Link, ...],
        visited: set[cst.CSTNode],
        registered: frozenset[cst.CSTNode],
    ) -> list[Capture]:
        """``finder`` is that of the module ``body`` is in: this one or one it leads to.
        ``visited`` holds nodes of every module on the way, so cycles across modules end too."""
        if len(chain) >= HELPER_DEPTH:
            return []
        found: list[Capture] = []
        for call, helper, owner in finder._helpers(body):
            checked_there = registered if owner is self else owner.registered_here or frozenset()
            if helper.node in visited or helper.node in checked_there:
                continue
            visited.add(helper.node)
            link = (*chain, self._link(finder, call, owner, helper))
            found += self._relocated(owner, owner._find(helper), root, link)
            found += self._through_helpers(owner, helper, root, link, visited, registered)
        return found

    def _helpers(self, body: Body) -> list[tuple[cst.Call, Body, CaptureFinder]]:
        """Calls in ``body`` of functions defined outside it: in this module, or at the top
        level of another module of the project; each with the finder of its module."""
        key = (body.node, body.bound_self)
        if key not in self._helper_calls:
            self._helper_calls[key] = self._helpers_uncached(body)
        return self._helper_calls[key]

    def _helpers_uncached(self, body: Body) -> list[tuple[cst.Call, Body, CaptureFinder]]:
        helpers: list[tuple[cst.Call, Body, CaptureFinder]] = []
        for scope in body.scope.walk():
            for call, call_scope in self.tree.calls_in(scope):
                callee = self.inference.infer(call.func, call_scope)
                if callee.kind is Kind.UNKNOWN:  # an imported name: look in the module it names
                    helpers += [(call, *found) for found in imported_helpers(self.inference, call, call_scope)]
                elif callee.kind is Kind.FUNCTION and isinstance(callee.definition, cst.FunctionDef):
                    local = self._local_helper(body, call, callee.definition)
                    if local is not None:
                        helpers.append((call, local, self))
        return helpers

    def _local_helper(self, body: Body, call: cst.Call, definition: cst.FunctionDef) -> Body | None:
        helper_scope = self.tree.scope_of.get(definition)
        if helper_scope is None:
            return None  # a method of a class from another module
        if body.scope.encloses(helper_scope):
            return None
        in_class = helper_scope.parent is not None and helper_scope.parent.kind is ScopeKind.CLASS
        bound = in_class and isinstance(call.func, cst.Attribute) and not self._is_static(definition)
        return Body(definition, helper_scope, bound_self=bound)

    def _link(self, finder: CaptureFinder, call: cst.Call, owner: CaptureFinder, helper: Body) -> Link:
        """The link for ``call`` (written in ``finder``'s module) to ``helper`` (in ``owner``'s)."""
        checked = self.inference.path
        where = call if finder is self else finder.places.place(call, checked)
        if owner is self or not isinstance(helper.node, cst.FunctionDef):
            return Link(_name_of(helper.node), where)
        return Link(_name_of(helper.node), where, owner.places.place(helper.node.name, checked))

    def _relocated(
        self, owner: CaptureFinder, captures: list[Capture], root: str, chain: tuple[Link, ...]
    ) -> list[Capture]:
        """The captures of a helper of ``owner``'s module, as reported for this module's ``root``."""
        if owner is self:
            return [replace(capture, root=root, chain=chain) for capture in captures]
        # Reported at the last call in this module on the way (the first link always is one).
        anchor = next(link.call for link in reversed(chain) if isinstance(link.call, cst.CSTNode))
        path = owner.places.short(self.inference.path)
        return [_foreign(capture, anchor, path, owner.places.line, root, chain) for capture in captures]

    def _is_static(self, definition: cst.FunctionDef) -> bool:
        outer = self.tree.scope_of[definition].parent
        return outer is not None and "builtins.staticmethod" in self.inference.decorator_names(definition, outer)

    def closure_names(self, body: Body) -> list[str]:
        """Names the body, or its default values, read from an enclosing function's scope."""
        reads = [(read, scope) for scope in body.scope.walk() for read in scope.reads]
        reads += [(read, read.scope) for read in self.tree.default_reads.get(body.node, [])]
        names: list[str] = []
        for read, scope in reads:
            owner = self.tree.owner(scope, read.name)
            if owner is None or body.scope.encloses(owner) or owner.kind in (ScopeKind.MODULE, ScopeKind.CLASS):
                continue
            if all(binding.kind is BindingKind.IMPORT for binding in owner.bindings.get(read.name, [])):
                continue  # a local import binds the same object on every call
            if read.name not in names:
                names.append(read.name)
        return names

    def _find(self, body: Body) -> list[Capture]:
        key = (body.node, body.bound_self)
        if key not in self._cache:
            self._cache[key] = self._find_uncached(body)
        return self._cache[key]

    def _find_uncached(self, body: Body) -> list[Capture]:
        found = list(self._defaults(body))
        parents = _parents(body.node)
        receiver = _receiver(body)
        for scope in body.scope.walk():
            for read in scope.reads:
                owner = self.tree.owner(scope, read.name)
                if owner is None:
                    continue
                if receiver is not None and owner is body.scope and read.name == receiver:
                    capture = self._attribute_of(body, read, parents, "self")
                elif body.scope.encloses(owner):
                    continue
                else:
                    capture = self._named(body, read, owner, parents)
                if capture is not None:
                    found.append(capture)
        return found

    def _named(self, body: Body, read: Read, owner: Scope, parents: dict[cst.CSTNode, cst.CSTNode]) -> Capture | None:
        inferred = self.inference.infer_name(read.name, owner)
        if inferred.kind is Kind.UNKNOWN:
            inferred = self.inference.imported_kind(read.name, owner)
        origin = _origin(owner)
        bindings = owner.bindings.get(read.name, [])
        # Cite the binding that gave the kind (`_cache = torch.ones(...)`, not `_cache = None`),
        # preferring one written where the name lives over a `global` reassignment.
        local = [b for b in bindings if b.written_in is owner] or bindings
        matching = [b for b in local if self.inference.binding_kind(b).kind is inferred.kind] or local
        first = matching[0].node if matching else None
        if inferred.kind in (Kind.OBJECT, Kind.MODULE) and isinstance(parents.get(read.node), cst.Attribute):
            attribute = self._attribute_of(body, read, parents, origin)
            if attribute is not None:
                return attribute
        if inferred.kind in _NOT_STATE:
            return None
        change, change_node = self._change(read.name, owner, bindings)
        return Capture(
            body,
            read.node,
            read.name,
            origin,
            inferred,
            first,
            _laundering(read.node, parents),
            change,
            change_node,
        )

    def _attribute_of(
        self, body: Body, read: Read, parents: dict[cst.CSTNode, cst.CSTNode], origin: str
    ) -> Capture | None:
        """``self.w`` or ``obj.w``: the attribute is what is captured."""
        parent = parents.get(read.node)
        if not isinstance(parent, cst.Attribute) or parent.value is not read.node:
            return None
        owner = self.inference.infer(read.node, read.scope)
        if not isinstance(owner.definition, cst.ClassDef):
            return None
        model = self.inference.class_model(owner.definition)
        attr = parent.attr.value
        inferred = model.attribute_kind(attr, self.inference)
        if inferred.kind in _NOT_STATE:
            return None
        name = f"{read.name}.{attr}"
        laundering = _laundering(parent, parents)
        if inferred.kind.is_tensor_like:
            return Capture(body, parent, name, f"a {model.name} object", inferred, None, laundering)
        return Capture(
            body,
            parent,
            name,
            f"a {model.name} object",
            inferred,
            None,
            laundering,
            "it is an object attribute, which can be reassigned at any time",
        )

    def _defaults(self, body: Body) -> list[Capture]:
        params = all_params(body.node.params)
        outer = body.scope.parent or body.scope
        found = []
        for param in params:
            if param.default is None:
                continue
            inferred = self.inference.infer(param.default, outer)
            if inferred.kind.is_tensor_like or inferred.kind in (Kind.MUTABLE, Kind.NDARRAY):
                found.append(Capture(body, param.default, f"default of '{param.name.value}'", DEFAULT_ORIGIN, inferred))
        return found

    def _change(self, name: str, owner: Scope, bindings: list[Binding]) -> tuple[str | None, cst.CSTNode | None]:
        """Why the value can differ between compile time and a later call, or None."""
        for binding in bindings:
            if binding.written_in is not owner:
                keyword = "global" if owner.kind is ScopeKind.MODULE else "nonlocal"
                return f"it is reassigned through '{keyword} {name}' in {binding.written_in.name}()", binding.node
            if binding.kind is BindingKind.AUGMENTED:
                return "it is updated in place by augmented assignment", binding.node
            if binding.kind is BindingKind.LOOP or binding.in_loop:
                return "it is reassigned in a loop", binding.node
        for later in bindings[1:]:
            if not any(earlier.exclusive_with(later) for earlier in bindings[: bindings.index(later)]):
                return "it is bound more than once", later.node
        for read in self.tree.reads_of(owner, name):
            if read.mutation is not None:
                return f"the code {read.mutation}", read.node
        return None, None


def _foreign(
    capture: Capture,
    anchor: cst.CSTNode,
    path: str,
    line: Callable[[cst.CSTNode], int],
    root: str,
    chain: tuple[Link, ...],
) -> Capture:
    """A capture of another module's helper, reported at ``anchor`` with its places as text."""
    origin = capture.origin
    if origin != DEFAULT_ORIGIN:
        origin = f"the module scope of {path}" if origin == "the module scope" else f"{origin} in {path}"
        if capture.binding is not None:
            origin += f" (line {line(capture.binding)})"
    change = capture.change
    if change is not None and capture.change_node is not None:
        change += f" ({path}:{line(capture.change_node)})"
    return replace(
        capture, node=anchor, origin=origin, binding=None, change=change, change_node=None, root=root, chain=chain
    )


def _name_of(node: cst.CSTNode) -> str:
    return node.name.value if isinstance(node, cst.FunctionDef) else "<lambda>"


def _receiver(body: Body) -> str | None:
    if not body.bound_self:
        return None
    params = all_params(body.node.params)
    return params[0].name.value if params else None


def _origin(owner: Scope) -> str:
    if owner.kind is ScopeKind.MODULE:
        return "the module scope"
    if owner.kind is ScopeKind.CLASS:
        return f"the body of class {owner.name}"
    return f"the enclosing function {owner.name}()"


def _laundering(node: cst.CSTNode, parents: dict[cst.CSTNode, cst.CSTNode]) -> str | None:
    """How a read turns a tensor into a Python value: ``.tolist()``, ``.shape``, ``float(...)``."""
    parent = parents.get(node)
    if isinstance(parent, cst.Attribute) and parent.value is node:
        attr = parent.attr.value
        call = parents.get(parent)
        if attr in api.LAUNDERING_METHODS and isinstance(call, cst.Call) and call.func is parent:
            return f".{attr}()"
        if attr in api.LAUNDERING_ATTRIBUTES or attr in api.TENSOR_METADATA:
            return f".{attr}"
        return None
    if isinstance(parent, cst.Arg):
        call = parents.get(parent)
        if isinstance(call, cst.Call) and isinstance(call.func, cst.Name) and len(call.args) == 1:
            if call.func.value in ("float", "int", "bool", "complex"):
                return f"{call.func.value}(...)"
    return None


def _parents(root: cst.CSTNode) -> dict[cst.CSTNode, cst.CSTNode]:
    """Child-to-parent links inside one registered body."""
    parents: dict[cst.CSTNode, cst.CSTNode] = {}
    stack = [root]
    while stack:
        node = stack.pop()
        for child in node.children:
            parents[child] = node
            stack.append(child)
    return parents
