"""The kinds of value the checker tells apart, and how they combine."""

from __future__ import annotations

import enum
from collections.abc import Iterable
from dataclasses import dataclass

import libcst as cst

from checker.facts.scopes.tree import Scope


class Kind(enum.Enum):
    TENSOR = "tensor"
    MODULE = "module"
    TENSOR_CONTAINER = "tensor-container"
    NDARRAY = "ndarray"
    MUTABLE = "mutable"
    IMMUTABLE = "immutable"
    NONE = "none"
    FUNCTION = "function"
    CLASS = "class"
    PYMODULE = "pymodule"
    OBJECT = "object"
    PARTIAL = "partial"
    #: A logger, an open file, a standard stream or a progress bar: calling its methods
    #: acts outside the program (writes a log, a file, the terminal).
    HANDLE = "handle"
    UNKNOWN = "unknown"

    @property
    def is_tensor_like(self) -> bool:
        """Tensors and the things that carry them into an op (AIG301)."""
        return self in (Kind.TENSOR, Kind.MODULE, Kind.TENSOR_CONTAINER)


class Basis(enum.Enum):
    """What an inference rests on. ``Inferred.subject`` names the thing it cites, where
    the basis has one (a qualified name, a class, a method or an attribute)."""

    NOTHING = "nothing"
    LITERAL = "literal"
    NONE = "none"
    NAME = "name"  # subject: a qualified name (a dtype, a constant, an imported module)
    CALL = "call"  # subject: the qualified name called
    ANNOTATION = "annotation"
    ARITHMETIC = "arithmetic"
    DISPLAY = "display"  # a list, dict or set display
    TENSOR_DISPLAY = "tensor-display"  # a display or tuple holding tensors
    CONSTANT_TUPLE = "constant-tuple"
    COMPREHENSION = "comprehension"
    ITEM = "item"  # an item of a tensor or a container of tensors
    TENSOR_ATTRIBUTE = "tensor-attribute"  # subject: the attribute
    TENSOR_METADATA = "tensor-metadata"  # subject: the attribute
    MODULE_PARAMETER = "module-parameter"  # subject: ``weight`` or ``bias``
    MODULE_OUTPUT = "module-output"
    TENSOR_METHOD = "tensor-method"  # a tensor method returning tensors; subject: the method
    TENSOR_CONVERSION = "tensor-conversion"  # a tensor method returning Python data; subject: the method
    ARRAY_METHOD = "array-method"  # subject: the method
    ARRAY_CONVERSION = "array-conversion"  # subject: ``tolist`` or ``item``
    DEF = "def"  # subject: the function
    LAMBDA = "lambda"
    BUILTIN = "builtin"  # subject: the builtin
    METHOD = "method"  # subject: ``Class.method``
    CLASS = "class"  # subject: the class
    INSTANCE = "instance"  # subject: the class; ``Inferred.named``: the name bound to it, if any
    REGISTERED = "registered"  # ``register_buffer`` and friends; subject: buffer, parameter or submodule


@dataclass(frozen=True, eq=False)
class Inferred:
    """A kind plus what it was inferred from, for messages and follow-up lookups.

    ``definition`` is the def, lambda or class behind a FUNCTION, CLASS or instance
    kind, with ``scope`` the scope it was written in.
    """

    kind: Kind
    basis: Basis = Basis.NOTHING
    subject: str = ""
    definition: cst.CSTNode | None = None
    scope: Scope | None = None
    named: str = ""

    @property
    def known(self) -> bool:
        return self.kind is not Kind.UNKNOWN


UNKNOWN = Inferred(Kind.UNKNOWN)
NONE = Inferred(Kind.NONE, Basis.NONE)


def join(candidates: Iterable[Inferred]) -> Inferred:
    """The kind of a name bound several times: agreed kinds survive, ``None`` is optional."""
    kinds = [c for c in candidates if c.kind is not Kind.NONE]
    if not kinds:
        return NONE
    first = kinds[0]
    if all(c.kind is first.kind for c in kinds):
        return first
    return UNKNOWN
