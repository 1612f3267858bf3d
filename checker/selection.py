"""Rule selection: which rules a run uses, from ``--select`` and ``--ignore``.

Each value is a comma-separated list and the options may be repeated. A token is a
code (``AIG301``), a rule name (``captured-tensor``) or a code prefix (``AIG3``,
``AIG``), in any case. Codes that are reserved but not implemented yet (``PLANNED``)
are valid tokens that select nothing, so that a configuration written today keeps
working when the rule lands. ``--ignore`` wins over ``--select``: the result is the
selected rules minus the ignored ones.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from checker.rules import ALL_RULES, PLANNED, Rule

#: What a code prefix looks like: ``AIG`` followed by up to three digits.
_PREFIX = re.compile(r"^AIG\d{0,3}$")


class SelectionError(ValueError):
    """A ``--select``/``--ignore`` token names no rule (a usage error)."""


@dataclass(frozen=True)
class Selection:
    """The outcome of selection.

    ``rules`` are fresh instances, ordered by code. ``notes`` say where a token was
    valid but selects nothing that runs (a planned code), so the user is not misled
    into reading "no findings" as "checked".
    """

    rules: tuple[Rule, ...]
    notes: tuple[str, ...] = ()


def split_tokens(values: Iterable[str]) -> list[str]:
    """The tokens of repeated, comma-separated option values, blanks dropped."""
    return [token.strip() for value in values for token in value.split(",") if token.strip()]


def select_rules(
    select: Sequence[str] | None = None,
    ignore: Sequence[str] = (),
    rules: Sequence[type[Rule]] = ALL_RULES,
    planned: Mapping[str, str] = PLANNED,
) -> Selection:
    """Resolve the option values against ``rules`` and ``planned``.

    ``select=None`` means the default: every implemented rule. Raises
    :class:`SelectionError` for a token that matches nothing, with the valid choices.
    """
    catalogue = Catalogue(rules, planned)
    notes: list[str] = []
    if select is None:
        chosen = set(catalogue.implemented)
    else:
        tokens = split_tokens(select)
        if not tokens:
            raise SelectionError(f"--select was given no codes; {catalogue.choices()}")
        chosen = set()
        for token in tokens:
            implemented, reserved = catalogue.resolve(token, "--select")
            chosen |= implemented
            if not implemented:
                notes.append(
                    f"--select {token} names only planned rules ({', '.join(sorted(reserved))}), "
                    "which are not implemented yet; it selects nothing"
                )
    for token in split_tokens(ignore):
        implemented, _ = catalogue.resolve(token, "--ignore")
        chosen -= implemented
    ordered = sorted(chosen)
    return Selection(tuple(catalogue.implemented[code]() for code in ordered), tuple(notes))


class Catalogue:
    """Every known code and name, implemented or planned, looked up case-insensitively."""

    @classmethod
    def from_registry(cls) -> Catalogue:
        """The catalogue of the rule registry (``ALL_RULES`` and ``PLANNED``)."""
        return cls(ALL_RULES, PLANNED)

    def __init__(self, rules: Sequence[type[Rule]], planned: Mapping[str, str]) -> None:
        self.implemented: dict[str, type[Rule]] = {rule.code.upper(): rule for rule in rules}
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

    def resolve(self, token: str, option: str) -> tuple[set[str], set[str]]:
        """The (implemented, planned) codes that ``token`` stands for."""
        upper = token.upper()
        code = self.lookup(token)
        if code in self.implemented:
            return {code}, set()
        if code in self.planned:
            return set(), {code}
        if _PREFIX.match(upper):
            implemented = {c for c in self.implemented if c.startswith(upper)}
            planned = {c for c in self.planned if c.startswith(upper)}
            if implemented or planned:
                return implemented, planned
        raise SelectionError(f"{option}: unknown rule '{token}'; {self.choices()}")

    def choices(self, prefixes: bool = True) -> str:
        """The valid tokens, for an error message."""
        entries = [f"{code} ({rule.name})" for code, rule in self.implemented.items()]
        entries += [f"{code} ({name}, planned)" for code, name in self.planned.items()]
        listing = ", ".join(sorted(entries))
        forms = "a code, a rule name or a code prefix such as AIG3" if prefixes else "a code or a rule name"
        return f"use {forms}; valid rules: {listing}"
