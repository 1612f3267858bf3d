"""Whether captured Python state can change after compilation, by the evidence of the code.

A compiled function keeps what it read while compiling (evidence/dynamo/FINDINGS.md
section S1b), so captured Python state matters only when something can change it later.
Straight-line code at a module's top level runs once, at import, before anything is
compiled; what can run later is the code in functions, a loop or a script's ``if
__name__ == "__main__":`` block (which may call compiled code between its steps), and any
code of another module (imported at a time nobody knows). So a module-level name is
state when the project shows one of:

- a function rebinds it (``global X; X = ...``, or ``del X``), a top-level loop or
  ``__main__`` block rebinds it, or an augmented assignment updates it anywhere;
- another module assigns it (``config.X = ...``);
- a function of its module, or any code of another module, changes the object in place
  (item or attribute assignment, a mutating method, ``del x[k]``), unless the change only
  fills in what is missing (``if k not in cache: cache[k] = v``, ``setdefault``): a
  memoisation cache keeps what was read.

A closure variable is state when the function that owns it (or a nested one, through
``nonlocal``) rebinds or changes it. This module judges the checked module; what other
modules show is asked of the project index (:class:`ImportedState`).
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import libcst as cst

from checker.facts.kinds.kind import Kind
from checker.facts.scopes.tree import (
    Binding,
    BindingKind,
    Declaration,
    Mutation,
    MutationKind,
    Read,
    Scope,
    ScopeKind,
    ScopeTree,
)
from checker.spec.links import Place


class ChangeKind(enum.Enum):
    """Why non-tensor state can differ between compile time and a later call."""

    DECLARED = "declared"  # rebound through ``global``/``nonlocal`` in a function
    AUGMENTED = "augmented"  # updated by augmented assignment
    LOOP = "loop"  # a closure variable rebound in a loop
    REBOUND = "rebound"  # a closure variable bound more than once, outside exclusive branches
    MUTATED = "mutated"  # changed in place (``Change.mutation`` says how)
    ASSIGNED = "assigned"  # assigned from another module (``config.X = ...``)
    WRITTEN = "written"  # an attribute path written after import (``Change.written``, ``mutation``: how)
    METHOD_WRITES = "method-writes"  # a method of the object's class assigns it (``function``: Class.method)
    ENVIRONMENT = "environment"  # the project sets the environment variable read


@dataclass(frozen=True)
class Change:
    """A reason captured state can change, and where the code shows it: ``node`` in the
    checked module, or ``place`` in another one."""

    kind: ChangeKind
    node: cst.CSTNode | None = None
    place: Place | None = None
    declaration: Declaration | None = None
    function: str = ""
    mutation: Mutation | None = None
    #: For ``WRITTEN``: the attributes below the object the write goes through (``("opts",)``),
    #: and what it writes as the read spells it (``NS.alpha``, ``CFG.opts``).
    path: tuple[str, ...] = ()
    written: str = ""
    #: What the write stores, when it is a tensor or a module (an AIG301 capture, not state).
    holds: Kind | None = None


class ImportedState(Protocol):
    """What the evidence for captured state asks of the other modules of the project."""

    def module_file(self, importer: str, qualified: str) -> str | None:
        """The file of the project module that ``qualified``, imported by the module at
        ``importer``, names (``from . import config``: ``.config``), or None."""
        ...

    def holds_value(self, module: str, name: str) -> bool:
        """Whether an assignment of the module file ``module`` binds its top-level ``name``
        (a name bound only by imports, defs and classes cannot be state)."""
        ...

    def change(
        self,
        module: str,
        name: str,
        checked: str,
        *,
        own: bool,
        rebinding: bool,
        attributes: tuple[str, ...] | None = None,
        holding: bool = False,
    ) -> Change | None:
        """What in the project can change the top-level ``name`` of the module file
        ``module`` after compilation, placed as seen from the checked file ``checked``.
        ``own``: the module's own code counts too; ``rebinding``: assignments to the name
        count, not only changes of the object in place (a ``from m import x`` copy is
        not rebound by ``m.x = ...``). ``attributes``: the read goes through these
        attributes of the object (``NS.alpha``: ``("alpha",)``), and only the changes
        that can reach them count; ``holding``: only assignments below it of a tensor or
        a module count (``Change.holds``)."""
        ...

    def environment(self, key: str, checked: str) -> Change | None:
        """Where the project sets the environment variable ``key`` (``os.environ[key] = v``,
        ``os.environ.update(...)``, ``os.putenv``), placed as seen from ``checked``."""
        ...


def local_change(
    tree: ScopeTree, name: str, owner: Scope, bindings: Sequence[Binding], *, attributes: bool = True
) -> Change | None:
    """What in this module can change ``name`` (bound in ``owner``) after compilation.
    ``attributes``: assigning an attribute of the object counts as changing it (not for a
    read of the name alone of an object of unknown kind: ``isinstance(x, C)`` is not
    changed by ``C.forward = patched``)."""
    at_module = owner.kind is ScopeKind.MODULE
    for binding in bindings:
        if binding.written_in is not owner:
            declaration = Declaration.GLOBAL if at_module else Declaration.NONLOCAL
            return Change(ChangeKind.DECLARED, binding.node, declaration=declaration, function=binding.written_in.name)
        if binding.kind is BindingKind.AUGMENTED:
            return Change(ChangeKind.AUGMENTED, binding.node)
        if binding.kind is BindingKind.LOOP or binding.in_loop:
            return Change(ChangeKind.LOOP, binding.node)
        if at_module and binding.in_main and len(bindings) > 1:
            return Change(ChangeKind.REBOUND, binding.node)
    if not at_module:
        for position, later in enumerate(bindings[1:], 1):
            if not any(earlier.exclusive_with(later) for earlier in bindings[:position]):
                return Change(ChangeKind.REBOUND, later.node)
    for read in tree.mutations_of(owner, name):
        if not attributes and read.mutation is not None and read.mutation.kind is MutationKind.ATTRIBUTE:
            continue
        if _changes_later(read, at_module):
            assert read.mutation is not None
            return Change(ChangeKind.MUTATED, read.node, mutation=read.mutation)
    return None


def _changes_later(read: Read, at_module: bool) -> bool:
    """A read that changes the object in place after compilation can: in a function (for
    a module-level object), and not only filling in what is missing."""
    mutation = read.mutation
    if mutation is None or mutation.memoises:
        return False
    return not at_module or read.scope.enclosing_function() is not None or read.in_loop or read.in_main
