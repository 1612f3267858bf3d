"""A registration made in another module, as plain data (see :mod:`checker.facts.handoffs`).

It travels in reports, jobs and cache entries, which must be usable without libcst and
the analysis: a run answered from the cache imports neither.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Elsewhere:
    """A registration, in another module, of this module's top-level ``name``:
    the registrar as spelled there, and where (``pkg/register.py:3``)."""

    name: str
    spelling: str
    where: str
