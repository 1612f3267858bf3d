"""The forms of code both tiers recognise, each described once over plain data.

The full tier reads libcst's tree, the cheap tier CPython's (or the bytes); each must
answer alike, so that the cheap tier only ever says "may this matter?" of what the full
tier would judge. A predicate that both ask is written here once, over a small
description that either tree gives (names and constants, not nodes): each tier's
adapter describes its node, and the answer is this module's. A new idiom is taught here,
and both tiers know it (``tests/checker/test_shared_predicates.py`` runs one table of
cases through both node types).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

# -- registrations ----------------------------------------------------------------------------

#: The word every spelling of the registration API holds (``torch.compiler.allow_in_graph``,
#: ``maybe_allow_in_graph``), and that a file must spell to register anything.
REGISTRAR_WORD = "allow_in_graph"
#: ``disallow_in_graph`` holds the word too, and registers nothing.
_NOT_REGISTRAR_PREFIX = "dis"
#: The keyword a registrar is also given what it registers by: ``allow_in_graph(fn=f)``.
REGISTERED_KEYWORD = "fn"


def names_registrar(identifier: str) -> bool:
    """Whether an identifier (a name, or an attribute's last part) can name the API: it
    spells the word other than as ``disallow_in_graph``. (String searches, not a pattern:
    a generated file asks this of thousands of registrations.)"""
    start = identifier.find(REGISTRAR_WORD)
    while start != -1:
        if not identifier.startswith(_NOT_REGISTRAR_PREFIX, max(0, start - len(_NOT_REGISTRAR_PREFIX)), start):
            return True
        start = identifier.find(REGISTRAR_WORD, start + 1)
    return False


#: The displays whose elements a registrar registers one by one: ``allow_in_graph`` iterates
#: a list or a tuple (torch/_dynamo/decorators.py). Named as both ``ast`` and libcst name
#: their node types.
ITERATED_DISPLAYS = frozenset({"List", "Tuple"})


def iterated(node_type: str) -> bool:
    """Whether a registered argument of this node type (``List``) registers its elements,
    each on its own, rather than itself."""
    return node_type in ITERATED_DISPLAYS


def registered_position(positional: int, keywords: Sequence[str | None], index: int = 0) -> int | str | None:
    """Which argument of a registrar call, given ``positional`` plain positional arguments and
    the ``keywords`` of its keyword arguments, is the one registered: positional ``index``,
    else the ``fn=`` keyword, else None (the call registers nothing)."""
    if index < positional:
        return index
    return REGISTERED_KEYWORD if REGISTERED_KEYWORD in keywords else None


# -- the __main__ guard -----------------------------------------------------------------------


@dataclass(frozen=True)
class Operand:
    """One side of a comparison, as far as the predicates here care: the identifier it is
    (``name``), or the text of the string constant it spells (``text``); neither for
    anything else."""

    name: str | None = None
    text: str | None = None


#: Anything but a name or a string constant.
OTHER = Operand()


@dataclass(frozen=True)
class Comparison:
    """A comparison of two operands (``equal``: by ``==``); a chain or any other test is none."""

    equal: bool
    left: Operand
    right: Operand


def is_main_guard(comparison: Comparison | None) -> bool:
    """``__name__ == "__main__"``, either way round: what a script's driver code runs under
    (after its definitions, and perhaps between compiled calls)."""
    if comparison is None or not comparison.equal:
        return False
    sides = (comparison.left, comparison.right)
    return any(side.name == "__name__" for side in sides) and any(side.text == "__main__" for side in sides)
