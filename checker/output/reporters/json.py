"""The ``json`` format: a JSON array of finding objects and nothing else.

Each object is :meth:`Finding.as_dict`; the array is in the stable order of
:func:`~checker.output.reporters.base.ordered`, so the output can be diffed and parsed
by other tools.
"""

from __future__ import annotations

import json
from collections.abc import Iterable

from checker.output.reporters.base import DEFAULT_OPTIONS, RenderOptions, ordered
from checker.spec.findings import Finding


def render(findings: Iterable[Finding], options: RenderOptions = DEFAULT_OPTIONS, /) -> str:
    """The findings as a JSON array, indented by two spaces, ending in a newline."""
    # ensure_ascii keeps the output valid whatever the terminal's encoding, and
    # escapes paths that are not valid Unicode instead of failing on them.
    return json.dumps([finding.as_dict() for finding in ordered(findings)], indent=2) + "\n"
