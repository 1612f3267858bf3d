"""What a registered body reads that is not one of its arguments.

A capture is a read, inside the body (nested defs, lambdas and comprehensions
included), of a name bound outside it: a closure cell, a module global, or, for a
bound method, an attribute of ``self``. Default values are captures too: they are
evaluated once, when the def runs. Each capture carries the inferred kind of what
it reads, how the read uses it (``.tolist()``, ``.shape``, ``float(...)``) and, for
state that is not a tensor, the reason it can change after compilation.

Calls are followed into helpers, a few calls deep: defs of this module and, through an
import, top-level defs of other modules of the project. A capture in another module's
helper is reported at the call in this module that leads there, and what it cites in
the other module is carried as places (file and line), since findings can only
locate nodes of the checked module.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import cached_property
from typing import Protocol

import libcst as cst

from checker import torch_api as api
from checker.facts.changes import Change, ChangeKind, ImportedState, local_change
from checker.facts.handoffs import ImportedDefinitions
from checker.facts.inference import Inference
from checker.facts.kinds import Inferred, Kind
from checker.facts.places import Places, seen_from
from checker.facts.scopes import Binding, BindingKind, Read, Scope, ScopeKind, ScopeTree, all_params
from checker.facts.targets import Body
from checker.links import Place

_NOT_STATE = (Kind.FUNCTION, Kind.CLASS, Kind.PYMODULE, Kind.PARTIAL)
#: How many helper calls deep captures are followed from a registered body.
HELPER_DEPTH = 3


class Holder(enum.Enum):
    """What holds a captured value."""

    MODULE = "module"  # a global of the module
    CLASS_BODY = "class-body"  # a class body; ``Source.name``: the class
    ENCLOSING_FUNCTION = "enclosing-function"  # ``Source.name``: the function
    OBJECT = "object"  # an attribute of an object; ``Source.name``: its class
    DEFAULT = "default"  # a default value, evaluated once when the def runs


@dataclass(frozen=True)
class Source:
    """Where a captured value comes from. For a read in another module's helper,
    ``module`` is that module's path as the checked module's findings show it, and
    ``line`` the line of the binding there (when one is cited)."""

    holder: Holder
    name: str = ""
    module: str | None = None
    line: int | None = None


class Laundering(enum.Enum):
    """How a read turns a tensor into Python data."""

    METHOD = "method"  # ``.tolist()``; ``how``: the method
    ATTRIBUTE = "attribute"  # ``.shape``; ``how``: the attribute
    CONVERSION = "conversion"  # ``float(...)``; ``how``: the builtin


@dataclass(frozen=True)
class Laundered:
    kind: Laundering
    how: str


@dataclass(frozen=True)
class Link:
    """One call on the way from a registered body to the helper that reads the state:
    ``call`` when it is in the checked module, else ``call_place``; ``defined`` is where a
    helper of another module is defined."""

    name: str
    call: cst.CSTNode | None = None
    call_place: Place | None = None
    defined: Place | None = None


@dataclass(frozen=True, eq=False)
class Capture:
    """One read of captured state inside a registered body.

    ``node`` is the reported expression (``W``, ``self.w``, a default value), ``name``
    the name read (``W``, ``self.w``; the parameter for a default), ``binding`` a node
    whose line a message can cite. ``laundered`` is the Python-value conversion applied
    to it, if any; ``change`` why non-tensor state can change after compilation, if it
    can. A read inside a helper has the registered body as ``root`` and the calls that
    lead there as ``chain``.
    """

    body: Body
    node: cst.CSTNode
    name: str
    source: Source
    inferred: Inferred
    binding: cst.CSTNode | None = None
    laundered: Laundered | None = None
    change: Change | None = None
    root: Body | None = None
    chain: tuple[Link, ...] = ()

    @property
    def function(self) -> Body:
        """The registered body the capture is reported for."""
        return self.root if self.root is not None else self.body


@dataclass(frozen=True, eq=False)
class Helper:
    """A function a registered body calls, with the capture finder of its module."""

    body: Body
    finder: CaptureFinder


class ImportedHelpers(Protocol):
    """What following helpers asks of the other modules of the project."""

    def helpers(self, importer: str, qualified: str) -> Sequence[Helper]:
        """The top-level defs of the project module that binds ``qualified`` (imported by
        the module at ``importer``; re-exports followed), each with its module's finder."""
        ...


class CaptureIndex(ImportedHelpers, ImportedState, ImportedDefinitions, Protocol):
    """What capture finding asks of the other modules of the project."""


class CaptureFinder:
    """The captures of one module's bodies. ``opaque`` gives the bodies of the module
    that tracing does not enter from a registered function (registered ones, judged as
    registrations of their own; custom ops): asked once a helper leads to one, and
    not followed into."""

    def __init__(
        self,
        tree: ScopeTree,
        inference: Inference,
        opaque: Callable[[], frozenset[cst.CSTNode]],
        index: CaptureIndex | None = None,
    ) -> None:
        self.tree = tree
        self.inference = inference
        self.index = index
        self._opaque = opaque
        self._cache: dict[tuple[cst.CSTNode, bool], list[Capture]] = {}
        # Each capture rule asks again, and following helpers may parse and locate in other modules.
        self._followed: dict[tuple[cst.CSTNode, bool], list[Capture]] = {}
        self._helper_calls: dict[tuple[cst.CSTNode, bool], list[tuple[cst.Call, Helper]]] = {}

    @cached_property
    def opaque(self) -> frozenset[cst.CSTNode]:
        return self._opaque()

    @cached_property
    def places(self) -> Places:
        """Where this module's nodes are, for facts about a module whose helpers lead here."""
        return Places(self.tree, self.inference.path)

    def captures(self, body: Body) -> list[Capture]:
        """Captures of ``body`` and, with the call chain, of the helpers it calls."""
        key = (body.node, body.bound_self)
        if key not in self._followed:
            self._followed[key] = self.own_captures(body) + self._through_helpers(self, body, body, (), {body.node})
        return self._followed[key]

    def _through_helpers(
        self,
        finder: CaptureFinder,
        body: Body,
        root: Body,
        chain: tuple[Link, ...],
        visited: set[cst.CSTNode],
    ) -> list[Capture]:
        """``finder`` is that of the module ``body`` is in: this one or one it leads to.
        ``visited`` holds nodes of every module on the way, so cycles across modules end too."""
        if len(chain) >= HELPER_DEPTH:
            return []
        found: list[Capture] = []
        for call, helper in finder.helper_calls(body):
            owner = helper.finder
            if helper.body.node in visited or helper.body.node in owner.opaque:
                continue
            visited.add(helper.body.node)
            link = (*chain, self._link(finder, call, helper))
            found += self._relocated(owner, owner.own_captures(helper.body), root, link)
            found += self._through_helpers(owner, helper.body, root, link, visited)
        return found

    def helper_calls(self, body: Body) -> list[tuple[cst.Call, Helper]]:
        """Calls in ``body`` of functions defined outside it: in this module, or at the top
        level of another module of the project; each with the finder of its module."""
        key = (body.node, body.bound_self)
        if key not in self._helper_calls:
            self._helper_calls[key] = self._helper_calls_uncached(body)
        return self._helper_calls[key]

    def _helper_calls_uncached(self, body: Body) -> list[tuple[cst.Call, Helper]]:
        helpers: list[tuple[cst.Call, Helper]] = []
        for scope in body.scope.walk():
            for call, call_scope in self.tree.calls_in(scope):
                callee = self.inference.infer(call.func, call_scope)
                if callee.kind is Kind.UNKNOWN or (callee.kind is Kind.FUNCTION and callee.definition is None):
                    # an imported name (a function of another module comes without its body): look there
                    helpers += [(call, found) for found in self._imported(call, call_scope)]
                elif callee.kind is Kind.FUNCTION and isinstance(callee.definition, cst.FunctionDef):
                    local = self._local_helper(body, call, callee.definition)
                    if local is not None:
                        helpers.append((call, Helper(local, self)))
        return helpers

    def _imported(self, call: cst.Call, scope: Scope) -> list[Helper]:
        if self.index is None:
            return []
        found: list[Helper] = []
        for qualified in sorted(self.inference.qualified_names(call.func, scope)):
            if not qualified.startswith("builtins."):
                found += self.index.helpers(self.inference.path, qualified)
        return found

    def _local_helper(self, body: Body, call: cst.Call, definition: cst.FunctionDef) -> Body | None:
        helper_scope = self.tree.scope_of.get(definition)
        if helper_scope is None:
            return None  # a method of a class from another module
        if body.scope.encloses(helper_scope):
            return None
        in_class = helper_scope.parent is not None and helper_scope.parent.kind is ScopeKind.CLASS
        bound = in_class and isinstance(call.func, cst.Attribute) and not self._is_static(definition)
        return Body(definition, helper_scope, bound_self=bound)

    def _link(self, finder: CaptureFinder, call: cst.Call, helper: Helper) -> Link:
        """The link for ``call`` (written in ``finder``'s module) to ``helper``."""
        checked = self.inference.path
        name = helper.body.name
        here = finder is self
        call_at = None if here else finder.places.place(call, checked)
        defined = None
        if helper.finder is not self and isinstance(helper.body.node, cst.FunctionDef):
            defined = helper.finder.places.place(helper.body.node.name, checked)
        return Link(name, call if here else None, call_at, defined)

    def _relocated(
        self, owner: CaptureFinder, captures: list[Capture], root: Body, chain: tuple[Link, ...]
    ) -> list[Capture]:
        """The captures of a helper of ``owner``'s module, as reported for this module's ``root``."""
        if owner is self:
            return [replace(capture, root=root, chain=chain) for capture in captures]
        # Reported at the last call in this module on the way (the first link always is one).
        anchor = next(link.call for link in reversed(chain) if link.call is not None)
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

    def own_captures(self, body: Body) -> list[Capture]:
        """The captures of ``body`` itself, helpers not followed."""
        key = (body.node, body.bound_self)
        if key not in self._cache:
            with self.inference.following_imports():
                self._cache[key] = self._own_captures_uncached(body)
        return self._cache[key]

    def _own_captures_uncached(self, body: Body) -> list[Capture]:
        found = list(self._defaults(body))
        parents = _parents(body.node)
        receiver = _receiver(body)
        for scope in body.scope.walk():
            for read in scope.reads:
                owner = self.tree.owner(scope, read.name)
                if owner is None:
                    continue
                if receiver is not None and owner is body.scope and read.name == receiver:
                    capture = self._attribute_of(body, read, parents)
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
        bindings = owner.bindings.get(read.name, [])
        # Cite the binding that gave the kind (`_cache = torch.ones(...)`, not `_cache = None`),
        # preferring one written where the name lives over a `global` reassignment.
        local = [b for b in bindings if b.written_in is owner] or bindings
        matching = [b for b in local if self.inference.binding_kind(b).kind is inferred.kind] or local
        first = matching[0].node if matching else None
        if isinstance(parents.get(read.node), cst.Attribute):
            if inferred.kind in (Kind.OBJECT, Kind.MODULE):
                attribute = self._attribute_of(body, read, parents)
                if attribute is not None:
                    return attribute
            through_module = self._module_attribute(body, read, owner, parents)
            if through_module is not None:
                return through_module
        if inferred.kind in _NOT_STATE:
            return None
        change = local_change(self.tree, read.name, owner, bindings)
        if change is None and owner.kind is ScopeKind.MODULE:
            change = self._project_change(read.name, bindings)
        return Capture(
            body, read.node, read.name, _source(owner), inferred, first, _laundering(read.node, parents), change
        )

    def _project_change(self, name: str, bindings: list[Binding]) -> Change | None:
        """What other modules of the project show about a global of this module: assigned
        or changed from there; for a name imported from another module, changed in place
        anywhere (its module rebinding it does not rebind this module's copy)."""
        index = self.index
        path = self.inference.path
        if index is None:
            return None
        if len(bindings) == 1 and bindings[0].kind is BindingKind.IMPORT and bindings[0].imported:
            origin = index.origin(path, bindings[0].imported)
            if origin is None:
                return None
            return index.change(origin.path, origin.name, path, own=True, rebinding=False)
        return index.change(path, name, path, own=False, rebinding=True)

    def _module_attribute(
        self, body: Body, read: Read, owner: Scope, parents: dict[cst.CSTNode, cst.CSTNode]
    ) -> Capture | None:
        """``config.X``, ``cfg.X``, ``pkg.config.X``: a top-level name of a project module,
        read through the module; judged as that module's global is."""
        index, path = self.index, self.inference.path
        bindings = owner.bindings.get(read.name, [])
        if index is None or not bindings or any(b.kind is not BindingKind.IMPORT for b in bindings):
            return None
        chain: list[cst.Attribute] = []
        node: cst.CSTNode = read.node
        while isinstance(parent := parents.get(node), cst.Attribute) and parent.value is node:
            chain.append(parent)
            node = parent
        for module_qualified in sorted(self.inference.qualified_names(read.node, read.scope)):
            for depth in range(len(chain) - 1, -1, -1):
                dotted = ".".join([module_qualified, *(link.attr.value for link in chain[:depth])])
                module = index.module_file(path, dotted)
                if module is None:
                    continue
                return self._module_global(body, chain[depth], module, dotted, parents)
        return None

    def _module_global(
        self, body: Body, node: cst.Attribute, module: str, dotted: str, parents: dict[cst.CSTNode, cst.CSTNode]
    ) -> Capture | None:
        name, path = node.attr.value, self.inference.path
        index, kinds = self.index, self.inference.index
        assert index is not None and kinds is not None
        if not index.holds_value(module, name):
            return None  # bound by imports, defs or classes only (CPython's outline says, no parse)
        inferred = kinds.kind(path, f"{dotted}.{name}")
        origin = index.origin(path, f"{dotted}.{name}")
        if inferred is None or inferred.kind in _NOT_STATE or origin is None:
            return None
        if origin.path == module:
            if all(binding.kind is BindingKind.IMPORT for binding in origin.bindings):
                return None  # imported there from outside the project: nothing to judge
            change = index.change(module, name, path, own=True, rebinding=True)
        else:  # re-exported there: the object is the origin's, rebinding it elsewhere does not reach here
            change = index.change(origin.path, origin.name, path, own=True, rebinding=False)
        source = Source(Holder.MODULE, module=seen_from(module, self.inference.path))
        return Capture(
            body, node, cst.Module([]).code_for_node(node), source, inferred, None, _laundering(node, parents), change
        )

    def _attribute_of(self, body: Body, read: Read, parents: dict[cst.CSTNode, cst.CSTNode]) -> Capture | None:
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
        source = Source(Holder.OBJECT, model.name)
        change = None if inferred.kind.is_tensor_like else Change(ChangeKind.ATTRIBUTE)
        return Capture(body, parent, name, source, inferred, None, laundering, change)

    def _mutates(self, body: Body, parameter: str) -> bool:
        """Whether the body changes its own parameter in place (a shared default container)."""
        return any(read.mutation is not None for read in self.tree.reads_of(body.scope, parameter))

    def _defaults(self, body: Body) -> list[Capture]:
        params = all_params(body.node.params)
        outer = body.scope.parent or body.scope
        found = []
        for param in params:
            if param.default is None:
                continue
            inferred = self.inference.infer(param.default, outer)
            mutated = inferred.kind is Kind.MUTABLE and self._mutates(body, param.name.value)
            if inferred.kind.is_tensor_like or inferred.kind is Kind.NDARRAY or mutated:
                source = Source(Holder.DEFAULT)
                found.append(Capture(body, param.default, param.name.value, source, inferred))
        return found


def _foreign(
    capture: Capture,
    anchor: cst.CSTNode,
    path: str,
    line: Callable[[cst.CSTNode], int],
    root: Body,
    chain: tuple[Link, ...],
) -> Capture:
    """A capture of another module's helper, reported at ``anchor``, its places as data."""
    source = capture.source
    if source.holder is not Holder.DEFAULT:
        cited = line(capture.binding) if capture.binding is not None else None
        source = replace(source, module=path, line=cited)
    change = capture.change
    if change is not None and change.node is not None:
        change = replace(change, node=None, place=Place(path, line(change.node)))
    return replace(capture, node=anchor, source=source, binding=None, change=change, root=root, chain=chain)


def _receiver(body: Body) -> str | None:
    if not body.bound_self:
        return None
    params = all_params(body.node.params)
    return params[0].name.value if params else None


def _source(owner: Scope) -> Source:
    if owner.kind is ScopeKind.MODULE:
        return Source(Holder.MODULE)
    if owner.kind is ScopeKind.CLASS:
        return Source(Holder.CLASS_BODY, owner.name)
    return Source(Holder.ENCLOSING_FUNCTION, owner.name)


def _laundering(node: cst.CSTNode, parents: dict[cst.CSTNode, cst.CSTNode]) -> Laundered | None:
    """How a read turns a tensor into a Python value: ``.tolist()``, ``.shape``, ``float(...)``."""
    parent = parents.get(node)
    if isinstance(parent, cst.Attribute) and parent.value is node:
        attr = parent.attr.value
        call = parents.get(parent)
        if attr in api.LAUNDERING_METHODS and isinstance(call, cst.Call) and call.func is parent:
            return Laundered(Laundering.METHOD, attr)
        if attr in api.LAUNDERING_ATTRIBUTES or attr in api.TENSOR_METADATA:
            return Laundered(Laundering.ATTRIBUTE, attr)
        return None
    if isinstance(parent, cst.Arg):
        call = parents.get(parent)
        if isinstance(call, cst.Call) and isinstance(call.func, cst.Name) and len(call.args) == 1:
            if call.func.value in ("float", "int", "bool", "complex"):
                return Laundered(Laundering.CONVERSION, call.func.value)
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
