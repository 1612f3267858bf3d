"""One pipeline from a module's bytes to its facts, for the engine and the project index alike.

The engine checks a file; the project index parses another module that a checked file
imports from. Both go the same way: the bytes are decoded as the interpreter decodes
them (:func:`checker.reading.source.decode`), CPython's parser refuses what would crash
or stall libcst (the gate), the text is made safe for libcst, libcst parses it once, and
the module's facts are built once over that tree. What each caller decides before (the
engine's pre-filter and veto, the index's "does it mention the API?") is its own; from
the gate on, there is one way, here, so the two never read one module differently.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from checker.facts.module import ModuleFacts, ModuleIndex
from checker.index.python_trees import KeepsTrees
from checker.reading.libcst_text import LibcstText, for_libcst, parse_for_libcst
from checker.reading.source import Gate, Unanalysable, python_gate
from checker.spec.links import Elsewhere


@dataclass(frozen=True)
class Parsed:
    """A module's facts (their ``module`` is libcst's tree), and the text libcst was given,
    which maps its columns back to the file's and restores fixed code (``prepared``)."""

    facts: ModuleFacts
    prepared: LibcstText


def parse(
    text: str,
    path: str,
    index: ModuleIndex | None,
    *,
    vetted: bool = False,
    matters: Callable[[ast.Module], bool] | None = None,
    elsewhere: Sequence[Elsewhere] = (),
    reused: ModuleFacts | None = None,
    gate_of: Callable[[str], Gate] | None = None,
) -> Parsed | Unanalysable | None:
    """The facts of the decoded ``text`` of the module at ``path``; why it cannot be analysed;
    or None when CPython's tree says it does not matter (``matters``, the caller's veto).

    ``vetted``: CPython's parser already found this text safe (the gate is not passed
    again); ``index``: the project's other modules, which the facts ask about;
    ``elsewhere``: registrations of the module's defs that other modules make; ``reused``:
    facts built earlier from this very text, so only the prepared text is made; ``gate_of``:
    CPython's verdict on a text (else the index's, when it keeps them, :class:`KeepsTrees`:
    one parse for the module's outline, imports and gate). CPython's tree is let go before
    libcst parses: the two would otherwise be in memory together.
    """
    if gate_of is None:
        gate_of = index.trees.gate if isinstance(index, KeepsTrees) else python_gate
    gate = Gate(accepted=True) if vetted else gate_of(text)
    if gate.refused is not None:
        return gate.refused
    if gate.tree is not None and matters is not None and not matters(gate.tree):
        return None
    prepared = for_libcst(text, gate.tree)
    gate = gate.without_tree()
    if reused is not None:
        return Parsed(reused, prepared)
    parsed = parse_for_libcst(text, prepared, gate)
    if isinstance(parsed, Unanalysable):
        return parsed
    module, prepared = parsed
    return Parsed(ModuleFacts(module, path, index=index, elsewhere=elsewhere), prepared)
