"""Findings about an installed package's function, made at the checked file's registration.

A checked file that registers a function an installed package defines
(``allow_in_graph(rearrange)`` after ``from extpkg import rearrange``) hands the
registration to that package's file, which is checked with it (:mod:`checker.passes.session`).
The user cannot edit that file, and nothing outside the checked paths is reported
(:func:`checker.reading.environment.reported_at_registrations`), but the registration is
theirs: each finding about the registered function is made at the registering line, its
message naming the package and the definition (:class:`checker.spec.messages.Installed`)
and citing the package's lines by file and line. What the package finds about its own
registrations is not the user's to fix, and is left out.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields, is_dataclass, replace
from functools import cached_property

import libcst as cst

from checker.output.fingerprints import fingerprinted
from checker.output.noqa import NoqaIndex, UsedElsewhere
from checker.reading.source import decode_source, read_source, split_lines
from checker.rules import Rule
from checker.rules.base import RuleFinding
from checker.spec.findings import Finding
from checker.spec.links import Elsewhere, Place
from checker.spec.messages import Function, Installed, Message, installed_fix

#: A node's span as :func:`checker.reading.positions.locate` gives it: (line, column), (end line, end column).
Span = tuple[tuple[int, int], tuple[int, int]]


@dataclass(frozen=True)
class Registering:
    """The checked file a registration is in, read once: its lines, its suppressions, its digest."""

    path: str

    @cached_property
    def data(self) -> bytes:
        try:
            return read_source(self.path) or b""
        except OSError:
            return b""

    @cached_property
    def text(self) -> str:
        try:
            return decode_source(self.data) if self.data else ""
        except (SyntaxError, UnicodeDecodeError, LookupError):
            return ""

    @cached_property
    def lines(self) -> list[str]:
        return split_lines(self.text) if self.text else []

    @cached_property
    def noqa(self) -> NoqaIndex:
        return NoqaIndex.from_text(self.text)

    def span(self, line: int) -> tuple[int, int]:
        """The 1-based columns of the text of ``line``, its indentation and trailing blanks left out."""
        text = self.lines[line - 1] if 0 < line <= len(self.lines) else ""
        start = len(text) - len(text.lstrip())
        return start + 1, max(len(text.rstrip()), start) + 1


def definitions(module: cst.Module) -> dict[str, cst.CSTNode]:
    """The module's top-level defs and classes by name (the names a registration hands over)."""
    return {
        statement.name.value: statement
        for statement in module.body
        if isinstance(statement, (cst.FunctionDef, cst.ClassDef))
    }


class Relocation:
    """Turns the raw findings of an installed package's file (``path``, of ``package``),
    checked with the registrations ``elsewhere`` made in the checked files, into findings
    at those registrations."""

    def __init__(
        self, path: str, package: str, elsewhere: Sequence[Elsewhere], defined: Mapping[str, cst.CSTNode]
    ) -> None:
        self.path = path
        self.package = package
        self.elsewhere = tuple(elsewhere)
        self.defined = defined
        self._registering: dict[str, Registering] = {}
        #: The registering files' suppressions that :meth:`findings` found used.
        self._used: dict[UsedElsewhere, None] = {}

    def nodes(self) -> list[cst.CSTNode]:
        """The definitions to locate with the findings' nodes."""
        return [self.defined[e.name] for e in self.elsewhere if e.name in self.defined]

    def findings(self, raw: Sequence[tuple[Rule, RuleFinding]], spans: Mapping[cst.CSTNode, Span]) -> list[Finding]:
        """The findings at the registrations, fingerprinted as the registering files' own
        are; those a ``noqa`` on the registering line suppresses left out (see :meth:`used`)."""
        found: dict[str, set[Finding]] = {}
        for rule, report in raw:
            name = self._registered(report, spans)
            if name is None:
                continue
            message = self._worded(report, name, spans)
            # The package's file judges each function once; every registration of it is the user's line.
            for where in dict.fromkeys(e.where for e in self.elsewhere if e.name == name):
                registering = self._file(where.path)
                hits = registering.noqa.hits(where.line, rule.code, rule.name)
                if hits:
                    self._used.update(dict.fromkeys(UsedElsewhere(where.path, hit) for hit in hits))
                    continue
                column, end_column = registering.span(where.line)
                finding = Finding(
                    where.path,
                    where.line,
                    column,
                    where.line,
                    end_column,
                    rule.code,
                    rule.name,
                    rule.severity,
                    message,
                )
                found.setdefault(registering.path, set()).add(finding)
        return [
            finding
            for path, findings in sorted(found.items())
            for finding in fingerprinted(sorted(findings, key=Finding.sort_key), self._file(path).lines)
        ]

    def used(self) -> tuple[UsedElsewhere, ...]:
        """The suppressions of the registering files that :meth:`findings` used: their own
        checks, which never see these findings, would otherwise call them unused."""
        return tuple(self._used)

    def dependencies(self) -> list[tuple[str, str]]:
        """The registering files the result read (their suppressions): path, sha256 of their bytes."""
        return [
            (os.path.realpath(path), hashlib.sha256(registering.data).hexdigest())
            for path, registering in self._registering.items()
        ]

    def _file(self, path: str) -> Registering:
        if path not in self._registering:
            self._registering[path] = Registering(path)
        return self._registering[path]

    def _registered(self, report: RuleFinding, spans: Mapping[cst.CSTNode, Span]) -> str | None:
        """The registered name a finding is about: the one its message names the function
        by, else the one whose definition holds its node; None for the package's own."""
        function = _function(report.message)
        if function is not None and function.registered_at is not None:
            return next((e.name for e in self.elsewhere if e.where == function.registered_at), None)
        line = spans[report.node][0][0]
        for name in dict.fromkeys(e.name for e in self.elsewhere):
            definition = self.defined.get(name)
            if definition is not None and spans[definition][0][0] <= line <= spans[definition][1][0]:
                return name
        return None

    def _worded(self, report: RuleFinding, name: str, spans: Mapping[cst.CSTNode, Span]) -> str:
        """The message, its lines cited in the package's file and its function named as defined there."""
        definition = self.defined.get(name)
        line = spans[definition if definition is not None else report.node][0][0]
        installed = Installed(self.package, Place(self.path, line))
        message = _with_installed(report.numbered(lambda node: Place(self.path, spans[node][0][0])), installed)
        function = _function(message)
        return message.text() if function is None else installed_fix(message, function)


def _function(message: Message) -> Function | None:
    """The registered function a message names, if it names one."""
    if not is_dataclass(message):
        return None
    return next((value for each in fields(message) if isinstance(value := getattr(message, each.name), Function)), None)


def _with_installed(message: Message, installed: Installed) -> Message:
    """``message`` naming its function as defined in ``installed``."""
    if not is_dataclass(message):
        return message
    changes = {
        each.name: replace(value, installed=installed)
        for each in fields(message)
        if isinstance(value := getattr(message, each.name), Function)
    }
    return replace(message, **changes) if changes else message
