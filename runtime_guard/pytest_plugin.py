"""pytest plugin: ``--aig-strict[=warn|raise]`` turns the guard on for a test session.

Registered through the ``pytest11`` entry point ``aigcheck``. Without the option the
plugin does nothing and imports nothing (torch included), so it costs test sessions
that do not use it nothing.

With it, ``pytest_configure`` sets the strict mode and calls ``runtime_guard.install()``,
so registrations made through ``torch.compiler.allow_in_graph`` from then on are guarded.
Ordering limitation: a module imported *before* the plugin is configured (a
``conftest.py`` import chain runs after it; another plugin that imports your package at
its own load may run before) keeps its unguarded registrations, and so does code that
bound ``from torch._dynamo import allow_in_graph`` before ``install()``. Set
``AIGCHECK_STRICT`` and call ``runtime_guard.install()`` at the top of your package to be
independent of plugin order.
"""

from __future__ import annotations

from typing import Any

import pytest

_MODES = ("off", "warn", "raise")


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("aigcheck", "allow_in_graph contract checks")
    group.addoption(
        "--aig-strict",
        nargs="?",
        const="raise",
        default=None,
        choices=_MODES,
        metavar="MODE",
        help="guard torch.compiler.allow_in_graph registrations: warn or raise (the default when no value is given)",
    )


def pytest_configure(config: pytest.Config) -> None:
    mode = config.getoption("--aig-strict")
    if mode is None:
        return
    import runtime_guard  # only now: importing it imports torch

    config.stash[_SAVED] = runtime_guard.get_strict()
    runtime_guard.set_strict(mode)
    runtime_guard.install()


def pytest_unconfigure(config: pytest.Config) -> None:
    if _SAVED not in config.stash:
        return
    import runtime_guard

    runtime_guard.uninstall()
    runtime_guard.set_strict(config.stash[_SAVED])


def pytest_report_header(config: pytest.Config) -> str | None:
    mode = config.getoption("--aig-strict")
    return f"aigcheck: allow_in_graph strict mode {mode!r}" if mode else None


_SAVED: pytest.StashKey[Any] = pytest.StashKey()
