"""What every message type shares: the base class, the table by code, and the words for
functions, call chains and cited lines."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Generic, TypeVar

from checker.spec.links import Place

#: How a message holds a line it cites in the checked file (see the module docstring).
L = TypeVar("L")

#: Every message type by code, filled as the types are defined (a code may have several
#: sentences: an annotation, a returned value, a registered class).
MESSAGES: dict[str, list[type[Message]]] = {}


class Message:
    """A finding's sentence as data: ``code`` says which rule's, ``text()`` words it."""

    code: ClassVar[str]
    #: Its fix, the clause after the last ``FIX_FOLLOWS``, changes the registered function's code
    #: (:func:`installed_fix` words another where that code is an installed package's).
    fixes_the_function: ClassVar[bool] = False

    def __init_subclass__(cls, **kwargs: object) -> None:
        super().__init_subclass__(**kwargs)
        if "code" in cls.__dict__:
            MESSAGES.setdefault(cls.code, []).append(cls)

    def text(self) -> str:
        """The sentence: what was found, the clause it breaks, and the fix."""
        raise NotImplementedError


def place(where: Place) -> str:
    """``pkg/register.py:3``."""
    return f"{where.path}:{where.line}"


def cite(at: object) -> str:
    """``line 7`` in the checked file, ``helpers.py:4`` in another."""
    if isinstance(at, Place):
        return place(at)
    if not isinstance(at, int):
        raise TypeError(f"a cited line must be numbered before it is worded, not {type(at).__name__}")
    return f"line {at}"


def bound(at: object | None) -> str:
    """`` (line 3)`` after what it qualifies, or nothing."""
    return "" if at is None else f" ({cite(at)})"


@dataclass(frozen=True)
class Installed:
    """Where a registered function of an installed package is defined: the package, and the
    file and line of its definition there (the finding itself is at the registration)."""

    package: str
    defined: Place


@dataclass(frozen=True)
class Function:
    """How a message names a registered function: ``scaled``, ``scaled (registered at
    pkg/ops.py:3)`` when another module registers it, or ``rearrange (defined in installed
    package extpkg at .../extpkg/__init__.py:7)`` when the finding is made at the checked
    file's registration of a function the user cannot edit."""

    name: str
    registered_at: Place | None = None
    installed: Installed | None = None

    def __str__(self) -> str:
        if self.installed is not None:
            where = self.installed
            return f"{self.name} (defined in installed package {where.package} at {place(where.defined)})"
        if self.registered_at is None:
            return self.name
        return f"{self.name} (registered at {place(self.registered_at)})"


#: A message's fix follows the last of these: ``...; pass 'W' as an argument``.
FIX_FOLLOWS = "; "


def installed_fix(message: Message, function: Function) -> str:
    """The text of ``message``, about ``function``, its fix made one its user can make where
    the function is an installed package's and the fix would change its code."""
    text = message.text()
    found, separator, _ = text.rpartition(FIX_FOLLOWS)
    if function.installed is None or not message.fixes_the_function or not separator:
        return text
    return (
        f"{found}; {function.name} is code of the installed package {function.installed.package}, not this "
        "project's: leave it unregistered (Dynamo then traces it), or register a function of your own that "
        "keeps the contract instead"
    )


@dataclass(frozen=True)
class Call(Generic[L]):
    """One call on the way from a registered function to a helper that captures:
    ``calls helper() (line 9), which is defined in helpers.py:4 and ...``."""

    helper: str
    at: L | Place
    defined: Place | None = None


def lead(function: Function | None, chain: tuple[Call[L], ...]) -> str:
    """``f: ``, ``f: calls helper() (line 9), which ``; nothing where the report names the
    function itself (the runtime guard's)."""
    text = "" if function is None else f"{function}: "
    for link in chain:
        text += f"calls {link.helper}() ({cite(link.at)}), which "
        if link.defined is not None:
            text += f"is defined in {place(link.defined)} and "
    return text
