"""The rule interface: one class per code, documented by its docstring.

A rule's docstring is its documentation (``--explain``, the README table). Its
``## Example`` and ``## Use instead`` code blocks are run by the test suite, as are
the extra ``invalid`` and ``valid`` examples: an invalid example marks each line
where a finding is expected with a trailing ``# AIGnnn`` comment, and an
:class:`Invalid` states the messages some of those findings must carry, as Fixit's
``expected_message`` does.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, fields, is_dataclass, replace
from typing import TYPE_CHECKING, ClassVar, cast

import libcst as cst

from checker.spec.catalog import BY_CODE
from checker.spec.findings import Severity
from checker.spec.links import Place
from checker.spec.messages import Message

if TYPE_CHECKING:
    from checker.facts.module import ModuleFacts


@dataclass(frozen=True)
class Fix:
    """Replace ``node`` with ``replacement`` (applied only under ``--fix``; shown by ``--diff``)."""

    node: cst.CSTNode
    replacement: cst.CSTNode


@dataclass(frozen=True)
class RuleFinding:
    """A rule's raw finding: the node it points at and its message.

    The message may cite syntax nodes where it cites lines (``bound=capture.binding``):
    the engine locates them with the reported nodes, in one pass, and :meth:`render`
    numbers them before the message is worded.
    """

    node: cst.CSTNode
    message: Message
    fix: Fix | None = None

    @property
    def cited(self) -> list[cst.CSTNode]:
        return list(_cited(self.message))

    def numbered(self, line_of: Callable[[cst.CSTNode], int | Place]) -> Message:
        """The message with each cited node replaced by its line (a place: in another file)."""
        return cast(Message, _numbered(self.message, line_of))

    def render(self, line_of: Callable[[cst.CSTNode], int]) -> str:
        return self.numbered(line_of).text()


def report(node: cst.CSTNode, message: Message, fix: Fix | None = None) -> RuleFinding:
    """``report(capture.node, ReadsCapturedTensor(..., bound=capture.binding))``."""
    return RuleFinding(node, message, fix)


def _cited(value: object) -> Iterator[cst.CSTNode]:
    """The syntax nodes a message holds for lines, in its fields and their fields."""
    if isinstance(value, cst.CSTNode):
        yield value
    elif isinstance(value, tuple):
        for item in value:
            yield from _cited(item)
    elif is_dataclass(value) and not isinstance(value, type):
        for each in fields(value):
            yield from _cited(getattr(value, each.name))


def _numbered(value: object, line_of: Callable[[cst.CSTNode], int | Place]) -> object:
    if isinstance(value, cst.CSTNode):
        return line_of(value)
    if isinstance(value, tuple):
        return tuple(_numbered(item, line_of) for item in value)
    if is_dataclass(value) and not isinstance(value, type):
        changes = {each.name: _numbered(getattr(value, each.name), line_of) for each in fields(value)}
        return replace(value, **changes)
    return value


@dataclass(frozen=True)
class Invalid:
    """An invalid example that pins messages: ``source`` marks its lines as a plain
    example does, and each of ``messages`` must be the message of one of its findings.

    ``Invalid(source, messages=(ReadsCapturedTensor(Function("f"), "tensor", "W", "the module scope", bound=3),))``
    """

    source: str
    messages: tuple[Message, ...]


class Rule:
    """Base class of every rule. Subclasses set ``code``, ``summary`` and ``check``; the
    name, severity and default come from the code table, :mod:`checker.spec.catalog`."""

    code: ClassVar[str]
    name: ClassVar[str]
    severity: ClassVar[Severity]
    summary: ClassVar[str]
    #: Off unless selected explicitly (or, for documented-only rules, by ``doc-strict``).
    default_enabled: ClassVar[bool]
    #: Whether its reports can carry a ``Fix``.
    fixable: ClassVar[bool] = False
    #: Extra examples beyond the docstring's, run as tests.
    invalid: ClassVar[tuple[str | Invalid, ...]] = ()
    valid: ClassVar[tuple[str, ...]] = ()

    def __init_subclass__(cls, **kwargs: object) -> None:
        """Name, severity and default come from the code table; only a stand-in for a code
        outside it (a test's) gives its own."""
        super().__init_subclass__(**kwargs)
        info = BY_CODE.get(cls.code)
        for attribute in ("name", "severity", "default_enabled"):
            if attribute in cls.__dict__:
                continue
            if info is None:
                raise TypeError(f"{cls.__name__}: {cls.code} is not in checker/spec/catalog.py; add it there")
            setattr(cls, attribute, getattr(info, attribute))

    def check(self, facts: ModuleFacts) -> Iterator[RuleFinding]:
        raise NotImplementedError

    @classmethod
    def documentation(cls) -> str:
        return inspect.cleandoc(cls.__doc__ or "")

    @classmethod
    def doc_examples(cls) -> tuple[list[str], list[str]]:
        """The (invalid, valid) code blocks of the ``Example``/``Use instead`` sections."""
        sections = _sections(cls.documentation())
        return (
            _code_blocks(sections.get("Example", "")),
            _code_blocks(sections.get("Use instead", "")),
        )

    @classmethod
    def all_examples(cls) -> tuple[list[str], list[str]]:
        """The (invalid, valid) sources of the docstring's examples and the extra ones."""
        invalid, valid = cls.doc_examples()
        extra = [inspect.cleandoc(_source(example)) for example in cls.invalid]
        return invalid + extra, valid + [inspect.cleandoc(s) for s in cls.valid]

    @classmethod
    def pinned(cls) -> list[tuple[str, tuple[Message, ...]]]:
        """(source, the messages its findings must include) of each :class:`Invalid` example."""
        return [(inspect.cleandoc(ex.source), ex.messages) for ex in cls.invalid if isinstance(ex, Invalid)]


def _source(example: str | Invalid) -> str:
    return example.source if isinstance(example, Invalid) else example


_SECTION = re.compile(r"^## (.+)$", re.MULTILINE)
_CODE_BLOCK = re.compile(r"```python\n(.*?)```", re.DOTALL)


def _sections(doc: str) -> dict[str, str]:
    parts = _SECTION.split(doc)
    return {title.strip(): body for title, body in zip(parts[1::2], parts[2::2], strict=True)}


def _code_blocks(text: str) -> list[str]:
    return [block for block in _CODE_BLOCK.findall(text)]
