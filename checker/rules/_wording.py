"""How the rules word the facts: enums and places turned into the fields of the message
types (:mod:`checker.spec.messages`), which alone join them into sentences.

Facts are enums and structured values (``checker.facts``); each function here words
one kind of fact the way several rules quote it.
"""

from __future__ import annotations

import libcst as cst

from checker.facts.captures.bodies import Action, Event
from checker.facts.captures.capture import Capture, Holder, Laundered, Laundering
from checker.facts.captures.changes import Change, ChangeKind
from checker.facts.captures.values import ValueType
from checker.facts.kinds.annotations import Judgement
from checker.facts.kinds.kind import Basis, Inferred, Kind
from checker.facts.registrations.sites import Registration
from checker.facts.registrations.targets import Body
from checker.facts.scopes.tree import Mutation, MutationKind
from checker.spec.links import Place, Registrar, Via
from checker.spec.messages import Call, Function, place

#: A value as messages name it (``registers X, a constant``).
KIND = {
    Kind.TENSOR: "tensor",
    Kind.MODULE: "nn.Module",
    Kind.TENSOR_CONTAINER: "container of tensors",
    Kind.NDARRAY: "numpy array",
    Kind.MUTABLE: "mutable container",
    Kind.IMMUTABLE: "constant",
    Kind.NONE: "None",
    Kind.FUNCTION: "function",
    Kind.CLASS: "class",
    Kind.PYMODULE: "imported module",
    Kind.OBJECT: "object",
    Kind.PARTIAL: "functools.partial",
    Kind.HANDLE: "logger or I/O handle",
    Kind.UNKNOWN: "unknown",
}


def registrar(registrar: Registrar) -> str:
    """``torch.compiler.allow_in_graph``, ``register (forwards to allow_in_graph)``,
    ``aig (the registrar maybe_allow_in_graph of utils.py)``."""
    if registrar.via is Via.WRAPPER:
        return f"{registrar.spelled} (forwards to allow_in_graph)"
    if registrar.via is Via.IMPORTED:
        return f"{registrar.spelled} (the registrar {registrar.alias} of {registrar.module})"
    return registrar.spelled


def registration(registration: Registration) -> str:
    """The registrar of a registration, with the other module's line when it is made there."""
    words = registrar(registration.registrar)
    return f"{words} at {place(registration.where)}" if registration.where is not None else words


def function(body: Body) -> Function:
    """How messages name a registered function: ``scaled``, or
    ``scaled (registered at pkg/ops.py:3)`` when another module registers it."""
    return Function(body.name, body.registered_at)


_ARITHMETIC = {Kind.TENSOR: "tensor arithmetic", Kind.NDARRAY: "array arithmetic"}
_ANNOTATED = {Kind.TENSOR: "annotated as a tensor", Kind.MODULE: "annotated as an nn.Module"}
_FIXED = {
    Basis.NOTHING: "",
    Basis.LITERAL: "a literal",
    Basis.NONE: "None",
    Basis.DISPLAY: "a list, dict or set",
    Basis.TENSOR_DISPLAY: "a container holding tensors",
    Basis.CONSTANT_TUPLE: "a tuple of constants",
    Basis.COMPREHENSION: "a comprehension",
    Basis.ITEM: "an item of a tensor or a container of tensors",
    Basis.MODULE_OUTPUT: "the output of a module call",
    Basis.LAMBDA: "a lambda",
}
_NAMING = {
    Basis.NAME: "{}",
    Basis.CALL: "{}(...)",
    Basis.TENSOR_ATTRIBUTE: "tensor attribute .{}",
    Basis.TENSOR_METADATA: "tensor metadata .{}",
    Basis.MODULE_PARAMETER: "parameter .{} of a module",
    Basis.TENSOR_METHOD: "tensor method .{}()",
    Basis.TENSOR_CONVERSION: ".{}() of a tensor",
    Basis.ARRAY_METHOD: "array method .{}()",
    Basis.ARRAY_CONVERSION: ".{}() of an array",
    Basis.DEF: "function {}()",
    Basis.BUILTIN: "builtin {}",
    Basis.METHOD: "method {}",
    Basis.CLASS: "class {}",
    Basis.REGISTERED: "a registered {}",
}


def inferred(value: Inferred) -> str:
    """What an inference rests on: ``torch.nn.Linear(...)``, ``an instance of Block``."""
    basis = value.basis
    if basis is Basis.ARITHMETIC:
        return _ARITHMETIC.get(value.kind, "arithmetic on constants")
    if basis is Basis.ANNOTATION:
        return _ANNOTATED[value.kind]
    if basis is Basis.INSTANCE:
        instance = f"an instance of {value.subject}"
        return f"'{value.named}', {instance}" if value.named else instance
    if basis in _NAMING:
        return _NAMING[basis].format(value.subject)
    return _FIXED[basis]


def value(value: Inferred) -> str:
    """A registered value that is not callable: ``None``, ``a constant``."""
    return "None" if value.kind is Kind.NONE else f"a {KIND[value.kind]}"


# -- captures ------------------------------------------------------------------------


def source(capture: Capture) -> str:
    """Where a captured value comes from: ``the module scope``, ``the enclosing function
    make()``, ``a Block object``; for a helper of another module, that module and line."""
    where = capture.source
    holder = where.holder
    if holder is Holder.DEFAULT:
        return "a default argument"
    if holder is Holder.ENVIRONMENT:
        return "the process environment"
    if holder is Holder.MODULE:
        text = "the module scope" if where.module is None else f"the module scope of {where.module}"
    else:
        if holder is Holder.CLASS_BODY:
            text = f"the body of class {where.name}"
        elif holder is Holder.ENCLOSING_FUNCTION:
            text = f"the enclosing function {where.name}()"
        elif holder is Holder.ASSIGNED:
            text = f"the attribute {where.name}() assigns" if where.name else "the attribute assigned at import"
        else:
            text = f"a {where.name} object"
        if where.module is not None:
            text += f" in {where.module}"
    if where.line is not None:
        text += f" (line {where.line})"
    return text


def chain(capture: Capture) -> tuple[Call[cst.CSTNode], ...]:
    """The calls from the registered function to the helper that captures: each at its
    call here (a node) or in another module (a place), with the helper's definition there."""
    return tuple(
        Call(link.name, link.call if link.call is not None else _given(link.call_place), link.defined)
        for link in capture.chain
    )


def _given(where: Place | None) -> Place:
    assert where is not None  # a link cites its call here or in another module
    return where


def mutation(mutation: Mutation) -> str:
    if mutation.kind is MutationKind.ATTRIBUTE:
        return f"assigns its attribute '{mutation.name}'"
    if mutation.kind is MutationKind.ITEM:
        return "assigns one of its items"
    if mutation.kind is MutationKind.DELETE:
        return "deletes part of it"
    return f"calls its .{mutation.name}() method"


def _change_text(change: Change, name: str) -> str:
    kind = change.kind
    if kind is ChangeKind.DECLARED:
        assert change.declaration is not None
        declared = name.rpartition(".")[2]  # ``config.X``: the module's ``global X``
        return f"it is reassigned through '{change.declaration.value} {declared}' in {change.function}()"
    if kind is ChangeKind.AUGMENTED:
        return "it is updated in place by augmented assignment"
    if kind is ChangeKind.LOOP:
        return "it is reassigned in a loop"
    if kind is ChangeKind.REBOUND:
        return "it is bound more than once"
    if kind is ChangeKind.MUTATED:
        assert change.mutation is not None
        return f"the code {mutation(change.mutation)}"
    if kind is ChangeKind.ASSIGNED:
        return "it is assigned from another module"
    if kind is ChangeKind.WRITTEN:
        assert change.mutation is not None
        return f"the code {_written(change.mutation, change.written or name)}"
    if kind is ChangeKind.METHOD_WRITES:
        assert change.mutation is not None
        return f"{change.function}() assigns 'self.{change.mutation.name}'"
    return "the code sets it"


def _written(mutation: Mutation, written: str) -> str:
    """``assigns 'NS.alpha'``, ``calls 'CFG.opts.update()'``: a write below an object."""
    if mutation.kind is MutationKind.METHOD:
        return f"calls '{written}.{mutation.name}()'"
    if mutation.kind is MutationKind.ITEM:
        return f"assigns an item of '{written}'"
    verb = "deletes" if mutation.kind is MutationKind.DELETE else "assigns"
    if mutation.name.endswith("*"):
        return f"{verb} an attribute of '{written}' by name"
    return f"{verb} '{written}'"


def what(capture: Capture, kinds: dict[Kind, str]) -> str:
    """What a message calls the captured value: ``environment variable``, else by its kind."""
    if capture.source.holder is Holder.ENVIRONMENT:
        return "environment variable"
    return kinds.get(capture.inferred.kind, "")


def change(capture: Capture) -> tuple[str, cst.CSTNode | Place | None]:
    """Why captured state can change, and where: ``and it is reassigned in a loop``, line 7."""
    found = capture.change
    assert found is not None
    return f"and {_change_text(found, capture.name)}", found.node if found.node is not None else found.place


def laundered(how: Laundered) -> str:
    """``.tolist()``, ``.shape``, ``float(...)``."""
    if how.kind is Laundering.METHOD:
        return f".{how.how}()"
    if how.kind is Laundering.ATTRIBUTE:
        return f".{how.how}"
    return f"{how.how}(...)"


# -- values, annotations, events -----------------------------------------------------

_VALUE_TYPES = {
    "builtins.int": "an int",
    "builtins.float": "a float",
    "builtins.str": "a str",
    "builtins.dict": "a dict",
    "builtins.set": "a set",
    "builtins.bool": "a bool",
    "types.FunctionType": "a function",
    "torch.dtype": "a torch.dtype",
}


def value_type(found: ValueType) -> str:
    """``a dict``, ``a Python number (.item())``, ``a Result object``."""
    if found.user_class is not None:
        return f"a {found.class_name} object"
    if found.from_item:
        return "a Python number (.item())"
    return _VALUE_TYPES[found.qualified]


def member(judgement: Judgement) -> str:
    """The member of an annotation that earned its verdict: ``np.ndarray``, ``Config (plain class)``."""
    if judgement.category is None:
        return judgement.spelled
    return f"{judgement.spelled} ({judgement.category.value})"


def event(event: Event) -> str:
    """What a body does: ``calls print()``, ``branches on a tensor value in 'if'``."""
    action, subject = event.action, event.subject
    if action is Action.CALL:
        return f"calls {subject}"
    if action is Action.LOG:
        return "logs"
    if action is Action.ASSIGN_OUTER:
        assert event.declaration is not None
        return f"assigns {event.declaration.value} '{subject}'"
    if action is Action.MUTATE_CAPTURED:
        assert event.mutation is not None
        return f"changes captured '{subject}' ({mutation(event.mutation)})"
    if action is Action.BRANCH:
        return f"branches on a tensor value in '{subject}'"
    if action is Action.CONVERT:
        kind = "bool" if subject == "bool" else "number"
        return f"converts a tensor to a Python {kind} with {subject}(...)"
    if action is Action.READ_DATA:
        return f"reads tensor data into Python with .{subject}()"
    if action is Action.HOST_METHOD:
        return f"calls .{subject}() on a tensor"
    return f"calls {subject}() on a tensor"
