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

This module says what a capture is; :mod:`checker.facts.captures.own` finds a body's
own, :mod:`checker.facts.captures.module_attributes` those read through an imported module, and
:mod:`checker.facts.captures.helpers` follows the calls into helpers.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

import libcst as cst

from checker.facts.captures.changes import Change
from checker.facts.kinds.kind import Inferred, Kind
from checker.facts.registrations.targets import Body
from checker.spec import torch_api as api
from checker.spec.links import Place

#: Kinds whose reads are not captured state: what they name is code, not data.
NOT_STATE = (Kind.FUNCTION, Kind.CLASS, Kind.PYMODULE, Kind.PARTIAL)
#: How many helper calls deep captures are followed from a registered body.
HELPER_DEPTH = 3


class Holder(enum.Enum):
    """What holds a captured value."""

    MODULE = "module"  # a global of the module
    CLASS_BODY = "class-body"  # a class body; ``Source.name``: the class
    ENCLOSING_FUNCTION = "enclosing-function"  # ``Source.name``: the function
    OBJECT = "object"  # an attribute of an object; ``Source.name``: its class
    DEFAULT = "default"  # a default value, evaluated once when the def runs
    ENVIRONMENT = "environment"  # an environment variable; ``Capture.name``: its name
    #: A tensor or a module the project stores in an attribute (``state.head = nn.Linear(...)``);
    #: ``Source.name``: the function that stores it ("" at a module's top level).
    ASSIGNED = "assigned"


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


def laundering(node: cst.CSTNode, parents: dict[cst.CSTNode, cst.CSTNode]) -> Laundered | None:
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
