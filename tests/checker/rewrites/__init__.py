"""Rewrites of a small Python project that keep its meaning, for the metamorphic tests.

A :class:`Program` is a set of modules under ``pkg/`` whose every line remembers the
line of the original program it came from (its :class:`Origin`; ``None`` for a line a
rewrite wrote). A finding after a rewrite is compared with the findings before it
through that origin: a capture inside a def moved to ``pkg/moved.py`` is expected
there, at the line that came from the one it was reported at.

Each rewrite takes a program and gives a :class:`Rewritten` program, or
:class:`Inapplicable` with the reason when there is nothing it may change. A rewrite
changes only what keeps the program's behaviour exactly (what an import binds, when a
statement runs, which object a name denotes); where it cannot, it leaves that
definition as it is and says why in ``declined``. What may differ, by the nature of
the rewrite: ``__module__`` of a moved def, ``__name__`` of a renamed one; torch's
registration reads neither.

The analysis is syntactic (libcst's scope provider) and knows the registrar
spellings the fixtures use (:class:`~rewrites.program.Registrars`); it never asks the
checker. :mod:`.program` holds the model and the analysis, :mod:`.moves` the rewrites
that move definitions, :mod:`.spellings` those that respell them, :mod:`.elsewhere`
those that register them from another module, a script or an installed package;
:data:`REWRITES` names them all, as the test ids do.
"""

from __future__ import annotations

from .elsewhere import SPELLINGS, register_elsewhere, register_from_a_script, register_through_an_installed_helper
from .moves import define_later, move_def, reexport
from .program import PACKAGE, Inapplicable, Line, Origin, Outcome, Program, Project, Rewrite, Rewritten, written
from .spellings import (
    alias_compiler,
    alias_registrar,
    alias_torch,
    call_form,
    decorator_form,
    list_form,
    rebinding_form,
    registration_sites,
    rename_def,
    rename_global,
    tuple_form,
)

__all__ = [
    "PACKAGE",
    "REWRITES",
    "SPELLINGS",
    "Inapplicable",
    "Line",
    "Origin",
    "Outcome",
    "Program",
    "Project",
    "Rewrite",
    "Rewritten",
    "drop_registration",
    "identity",
    "shift_lines",
    "then",
]


# -- for the harness ---------------------------------------------------------------------


def identity(program: Program) -> Outcome:
    """Nothing changes."""
    return Rewritten(program, ("nothing",))


def shift_lines(program: Program) -> Outcome:
    """A comment line above every module: every line moves down one, and must be found there."""
    changed = {
        path: written("# shifted by the metamorphic tests") + list(lines) for path, lines in program.modules.items()
    }
    return Rewritten(program.changed(changed), tuple(changed))


def drop_registration(program: Program) -> Outcome:
    """Not meaning-preserving: the first registrar decorator of the program is deleted."""
    project = Project(program)
    for p in project.modules():
        for site in registration_sites(project, p)[0]:
            if site.form == "decorator":
                lines = [line for n, line in enumerate(p.lines, 1) if n != site.line]
                return Rewritten(program.changed({p.path: lines}), (f"{p.stem}.{site.name}: decorator deleted",))
    return Inapplicable("no registrar decorator")


def then(first: Rewrite, second: Rewrite) -> Rewrite:
    """``first``, then ``second`` on its result: origins carry through both."""

    def both(program: Program) -> Outcome:
        one = first(program)
        if isinstance(one, Inapplicable):
            return one
        two = second(one.program)
        if isinstance(two, Inapplicable):
            return Inapplicable(f"after {'; '.join(one.done)}: {two.reason}")
        return Rewritten(two.program, one.done + two.done, one.declined + two.declined)

    return both


#: The meaning-preserving rewrites, by the name the test ids use.
REWRITES: dict[str, Rewrite] = {
    "move-def": move_def,
    "define-later": define_later,
    "alias-torch": alias_torch,
    "alias-compiler": alias_compiler,
    "alias-registrar": alias_registrar,
    "reexport": reexport,
    "decorator-form": decorator_form,
    "call-form": call_form,
    "rebinding-form": rebinding_form,
    # the registrations left in the original module now name an imported def
    "move-def+rebinding-form": then(move_def, rebinding_form),
    "rename-def": rename_def,
    "rename-global": rename_global,
    "list-form": list_form,
    "tuple-form": tuple_form,
    **{f"register-elsewhere-{name}": register_elsewhere(name) for name in SPELLINGS},
    "register-from-a-script": register_from_a_script,
    "register-through-an-installed-helper": register_through_an_installed_helper("wrapper"),
    "register-through-an-installed-alias": register_through_an_installed_helper("alias"),
}
