"""What the guard recorded, for the runtime-guard tests.

A module of its own rather than ``conftest``: several test folders have a conftest, and
``from conftest import ...`` resolves to whichever was imported first in a session that
collects more than one of them."""

from __future__ import annotations

import runtime_guard as rg


def codes() -> list[str]:
    """The codes of the violations recorded so far."""
    return [v.code for v in rg.registry.violations()]
