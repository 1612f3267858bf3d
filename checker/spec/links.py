"""What crosses modules, as plain data: places, registrars, registrations made elsewhere.

These values travel between worker processes and in cache entries, which must be
usable without libcst and the analysis (a run answered from the cache imports
neither), so this module is standard library only.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass


@dataclass(frozen=True)
class Place:
    """A line of a module other than the one a fact is about: ``helpers.py`` line 4.
    ``path`` is as that fact's findings show it."""

    path: str
    line: int


class Via(enum.Enum):
    """How an expression comes to register what it is given."""

    API = "api"  # allow_in_graph itself, under any import spelling or alias
    WRAPPER = "wrapper"  # a function of the module that forwards its parameter to a registrar
    IMPORTED = "imported"  # an alias or wrapper defined in another module of the project


@dataclass(frozen=True)
class Registrar:
    """A registrar as written at a registration (``spelled``), how it registers, and which
    positional argument it registers. An imported one also names itself (``alias``) and
    its module's file (``module``) there."""

    spelled: str
    via: Via = Via.API
    index: int = 0
    alias: str = ""
    module: str = ""


@dataclass(frozen=True)
class Elsewhere:
    """A registration, in another module, of this module's top-level ``name``: the
    registrar used there, and where (``pkg/register.py`` line 3)."""

    name: str
    registrar: Registrar
    where: Place


@dataclass(frozen=True)
class Links:
    """What checking one file found about the rest of the project.

    ``exports``: module-level names it binds to a registrar (``register = allow_in_graph``),
    which make other files that mention them candidates too; ``registered``: the top-level
    functions it registers, which make the files that import them candidates. ``dependencies``: the other
    files its result depends on (path, sha256 of its bytes, or ``ABSENT`` for one an import
    looked for and did not find). ``handoffs``: registrations here of defs and classes that
    other files define (that file's resolved path, the registration).
    """

    exports: tuple[str, ...] = ()
    dependencies: tuple[tuple[str, str], ...] = ()
    handoffs: tuple[tuple[str, Elsewhere], ...] = ()
    #: Top-level functions registered here, whose calls in other files are judged too.
    registered: tuple[str, ...] = ()


#: The digest recorded for a dependency that was not there: an import that found no file
#: at a path depends on that path staying empty.
ABSENT = ""
