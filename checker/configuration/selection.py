"""Rule selection: which rules a run uses, from the configuration and the command line.

A token is a code (``AIG301``), a rule name (``captured-tensor``) or a code prefix
(``AIG3``, ``AIG``), in any case; command-line values are comma-separated and the
options may be repeated. Codes that are reserved but not implemented yet
(``PLANNED``) are valid tokens that select nothing, so that a configuration written
today keeps working when the rule lands.

Selection starts from the default set, every implemented rule that is on by
default, and applies :class:`Layer` values in order, the configuration file's and
then the command line's, as ruff does. In each layer ``select`` replaces the set
chosen so far (so ``--select`` on the command line discards the file's ``select``,
``extend-select`` and ``ignore``), ``extend-select`` adds to it and ``ignore``
removes from it. ``ignore`` wins within a layer, even over a more specific
``select``.

A rule that is off by default (``Rule.default_enabled = False``) runs only when a
``select`` or ``extend-select`` names its code or name exactly; a prefix such as
``AIG1`` or ``AIG`` does not turn it on, so that asking for a family does not bring
in its noisiest members. ``doc-strict`` turns on the documented-only rules
(:data:`DOC_STRICT_CODES`): they join the default set and prefixes select them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, NamedTuple

from checker.output.reporters.base import escape_controls
from checker.spec import catalog
from checker.spec.catalog import RuleInfo

if TYPE_CHECKING:
    from checker.rules import Rule

#: What a code prefix looks like: ``AIG`` followed by up to three digits.
_PREFIX = re.compile(r"^AIG\d{0,3}$")

#: Off-by-default rules that ``doc-strict`` turns on: checks of what the documentation
#: promises rather than of what fails (README.md, "Rules").
DOC_STRICT_CODES: frozenset[str] = frozenset({"AIG105"})


class SelectionError(ValueError):
    """A ``--select``/``--ignore`` token names no rule (a usage error)."""


@dataclass(frozen=True)
class Selection:
    """The outcome of selection.

    ``codes`` are the chosen rules' codes, in order. ``notes`` say where a token was
    valid but selects nothing that runs (a planned code, or a prefix of rules that
    are off by default), so the user is not misled into reading "no findings" as
    "checked". ``classes``: the rule classes to make ``rules`` from, when not the
    registry's (stand-ins in tests).
    """

    codes: tuple[str, ...]
    notes: tuple[str, ...] = ()
    classes: Mapping[str, type[Rule]] | None = field(default=None, repr=False, compare=False)

    @cached_property
    def rules(self) -> tuple[Rule, ...]:
        """Fresh instances of the chosen rules, ordered by code.

        Made on first use: the rule classes import libcst and the analysis, which a run
        answered from the cache never needs.
        """
        from checker.rules import RULES_BY_CODE

        classes = RULES_BY_CODE if self.classes is None else self.classes
        return tuple(classes[code]() for code in self.codes)


@dataclass(frozen=True)
class Layer:
    """One place that chooses rules. ``origin`` prefixes option names in messages:
    ``"--"`` for the command line, ``"pyproject.toml: [tool.aigcheck] "`` for a file."""

    select: Sequence[str] | None = None
    extend_select: Sequence[str] = ()
    ignore: Sequence[str] = ()
    origin: str = "--"


class Resolved(NamedTuple):
    """What one token stands for: implemented codes that it selects, planned codes,
    and implemented codes that a prefix leaves out because they are off by default."""

    implemented: set[str]
    planned: set[str]
    off: set[str]


def split_tokens(values: Iterable[str]) -> list[str]:
    """The tokens of repeated, comma-separated option values, blanks dropped."""
    return [token.strip() for value in values for token in value.split(",") if token.strip()]


def select_rules(
    select: Sequence[str] | None = None,
    ignore: Sequence[str] = (),
    rules: Sequence[type[Rule]] | None = None,
    planned: Mapping[str, str] | None = None,
    *,
    extend_select: Sequence[str] = (),
    doc_strict: bool = False,
) -> Selection:
    """Resolve one layer of option values; see :func:`resolve_selection`."""
    return resolve_selection([Layer(select, extend_select, ignore)], rules, planned, doc_strict=doc_strict)


def resolve_selection(
    layers: Sequence[Layer],
    rules: Sequence[type[Rule]] | None = None,
    planned: Mapping[str, str] | None = None,
    *,
    doc_strict: bool = False,
) -> Selection:
    """Apply ``layers`` in order to the default set (module docstring).

    ``rules`` (classes) and ``planned`` default to the catalogue's. Raises
    :class:`SelectionError` for a token that matches nothing, with the valid choices.
    """
    catalogue = Catalogue(catalog.RULES if rules is None else rules, catalog.PLANNED if planned is None else planned)
    notes: list[str] = []
    chosen = catalogue.defaults(doc_strict)
    for layer in layers:
        if layer.select is not None:
            tokens = split_tokens(layer.select)
            if not tokens:
                raise SelectionError(f"{layer.origin}select was given no codes; {catalogue.choices()}")
            chosen = catalogue.select(tokens, f"{layer.origin}select", doc_strict, notes)
        chosen |= catalogue.select(split_tokens(layer.extend_select), f"{layer.origin}extend-select", doc_strict, notes)
        for token in split_tokens(layer.ignore):
            chosen -= catalogue.resolve(token, f"{layer.origin}ignore", include_off=True).implemented
    classes = None if rules is None else {rule.code.upper(): rule for rule in rules}
    return Selection(tuple(sorted(chosen)), tuple(notes), classes)


class Catalogue:
    """Every known code and name, implemented or planned, looked up case-insensitively.

    ``rules`` need only a code, a name and ``default_enabled``: the
    :class:`~checker.spec.catalog.RuleInfo` entries of the catalogue, or rule classes.
    """

    @classmethod
    def from_registry(cls) -> Catalogue:
        """The catalogue of every rule (:mod:`checker.spec.catalog`: ``RULES`` and ``PLANNED``)."""
        return cls(catalog.RULES, catalog.PLANNED)

    def __init__(self, rules: Sequence[RuleInfo] | Sequence[type[Rule]], planned: Mapping[str, str]) -> None:
        self.implemented: dict[str, RuleInfo | type[Rule]] = {rule.code.upper(): rule for rule in rules}
        # A planned code that has since been implemented is no longer planned.
        self.planned: dict[str, str] = {
            code.upper(): name for code, name in planned.items() if code.upper() not in self.implemented
        }
        self._names: dict[str, str] = {rule.name.lower(): code for code, rule in self.implemented.items()}
        self._names.update({name.lower(): code for code, name in self.planned.items()})

    def lookup(self, token: str) -> str | None:
        """The code that ``token`` (a code or a rule name, any case) names exactly."""
        code = self._names.get(token.strip().lower(), token.strip().upper())
        return code if code in self.implemented or code in self.planned else None

    def defaults(self, doc_strict: bool = False) -> set[str]:
        """The codes a run uses when nothing is selected."""
        return {code for code in self.implemented if self.on_by_prefix(code, doc_strict)}

    def on_by_prefix(self, code: str, doc_strict: bool = False) -> bool:
        """Whether a prefix (and the default set) includes the implemented rule ``code``."""
        return self.implemented[code].default_enabled or (doc_strict and code in DOC_STRICT_CODES)

    def select(self, tokens: Sequence[str], option: str, doc_strict: bool, notes: list[str]) -> set[str]:
        """The implemented codes ``tokens`` select; a note for each token that selects none."""
        chosen: set[str] = set()
        for token in tokens:
            implemented, reserved, off = self.resolve(token, option, doc_strict=doc_strict)
            chosen |= implemented
            if implemented:
                continue
            if off:
                hint = " or set doc-strict" if off <= DOC_STRICT_CODES else ""
                notes.append(
                    f"{option} {escape_controls(token)} matches only rules that are off by default "
                    f"({', '.join(sorted(off))}); name them exactly{hint} to run them"
                )
            else:
                notes.append(
                    f"{option} {escape_controls(token)} names only planned rules ({', '.join(sorted(reserved))}), "
                    "which are not implemented yet; it selects nothing"
                )
        return chosen

    def resolve(self, token: str, option: str, *, doc_strict: bool = False, include_off: bool = False) -> Resolved:
        """What ``token`` stands for (:class:`Resolved`); ``include_off`` puts every
        implemented rule a prefix matches into ``implemented`` (for ``ignore``)."""
        upper = token.upper()
        code = self.lookup(token)
        if code in self.implemented:
            return Resolved({code}, set(), set())
        if code in self.planned:
            return Resolved(set(), {code}, set())
        if _PREFIX.match(upper):
            matched = {c for c in self.implemented if c.startswith(upper)}
            planned = {c for c in self.planned if c.startswith(upper)}
            off = set() if include_off else {c for c in matched if not self.on_by_prefix(c, doc_strict)}
            if matched or planned:
                return Resolved(matched - off, planned, off)
        raise SelectionError(f"{option}: unknown rule '{token}'; {self.choices()}")

    def choices(self, prefixes: bool = True) -> str:
        """The valid tokens, for an error message."""
        entries = [f"{code} ({rule.name})" for code, rule in self.implemented.items()]
        entries += [f"{code} ({name}, planned)" for code, name in self.planned.items()]
        listing = ", ".join(sorted(entries))
        forms = "a code, a rule name or a code prefix such as AIG3" if prefixes else "a code or a rule name"
        return f"use {forms}; valid rules: {listing}"
