"""The rule interface: one class per code, documented by its docstring.

A rule's docstring is its documentation (``--explain``, the README table). Its
``## Example`` and ``## Use instead`` code blocks are run by the test suite, as are
the extra ``invalid`` and ``valid`` examples: an invalid example marks each line
where a finding is expected with a trailing ``# AIGnnn`` comment.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

import libcst as cst

from checker.spec.catalog import BY_CODE
from checker.spec.findings import Severity

if TYPE_CHECKING:
    from checker.facts.module import ModuleFacts


@dataclass(frozen=True)
class Fix:
    """Replace ``node`` with ``replacement`` (applied only under ``--fix``; shown by ``--diff``)."""

    node: cst.CSTNode
    replacement: cst.CSTNode


@dataclass(frozen=True)
class Report:
    """A rule's raw finding: the node it points at and a self-contained message.

    The message is a sequence of parts; a node part is rendered as its line number,
    so rules can cite "(line 3)" without computing positions themselves.
    """

    node: cst.CSTNode
    parts: tuple[str | cst.CSTNode, ...]
    fix: Fix | None = None

    @property
    def cited(self) -> list[cst.CSTNode]:
        return [part for part in self.parts if isinstance(part, cst.CSTNode)]

    def render(self, line_of: Callable[[cst.CSTNode], int]) -> str:
        return "".join(part if isinstance(part, str) else str(line_of(part)) for part in self.parts)


def report(node: cst.CSTNode, *parts: str | cst.CSTNode, fix: Fix | None = None) -> Report:
    """``report(node, "reads 'W' (line ", binding, ")")``."""
    return Report(node, parts, fix)


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
    invalid: ClassVar[tuple[str, ...]] = ()
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

    def check(self, facts: ModuleFacts) -> Iterator[Report]:
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
        invalid, valid = cls.doc_examples()
        return invalid + [inspect.cleandoc(s) for s in cls.invalid], valid + [inspect.cleandoc(s) for s in cls.valid]


_SECTION = re.compile(r"^## (.+)$", re.MULTILINE)
_CODE_BLOCK = re.compile(r"```python\n(.*?)```", re.DOTALL)


def _sections(doc: str) -> dict[str, str]:
    parts = _SECTION.split(doc)
    return {title.strip(): body for title, body in zip(parts[1::2], parts[2::2], strict=True)}


def _code_blocks(text: str) -> list[str]:
    return [block for block in _CODE_BLOCK.findall(text)]
