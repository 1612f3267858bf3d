"""The kinds of value the checker tells apart, and how they combine."""

from __future__ import annotations

import enum
from collections.abc import Iterable
from dataclasses import dataclass

import libcst as cst

from checker.facts.scopes import Scope


class Kind(enum.Enum):
    TENSOR = "tensor"
    MODULE = "nn.Module"
    TENSOR_CONTAINER = "container of tensors"
    NDARRAY = "numpy array"
    MUTABLE = "mutable container"
    IMMUTABLE = "constant"
    NONE = "None"
    FUNCTION = "function"
    CLASS = "class"
    PYMODULE = "imported module"
    OBJECT = "object"
    PARTIAL = "functools.partial"
    UNKNOWN = "unknown"

    @property
    def is_tensor_like(self) -> bool:
        """Tensors and the things that carry them into an op (AIG301)."""
        return self in (Kind.TENSOR, Kind.MODULE, Kind.TENSOR_CONTAINER)


@dataclass(frozen=True, eq=False)
class Inferred:
    """A kind plus what it was inferred from, for messages and follow-up lookups.

    ``definition`` is the def, lambda or class behind a FUNCTION, CLASS or instance
    kind, with ``scope`` the scope it was written in.
    """

    kind: Kind
    why: str = ""
    definition: cst.CSTNode | None = None
    scope: Scope | None = None

    @property
    def known(self) -> bool:
        return self.kind is not Kind.UNKNOWN


UNKNOWN = Inferred(Kind.UNKNOWN)


def join(candidates: Iterable[Inferred]) -> Inferred:
    """The kind of a name bound several times: agreed kinds survive, ``None`` is optional."""
    kinds = [c for c in candidates if c.kind is not Kind.NONE]
    if not kinds:
        return Inferred(Kind.NONE, "None")
    first = kinds[0]
    if all(c.kind is first.kind for c in kinds):
        return first
    return UNKNOWN
