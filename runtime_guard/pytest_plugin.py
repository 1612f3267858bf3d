"""pytest plugin: ``--aig-strict`` (raise) or ``--aig-strict=warn`` turns the guard on for a test session.

The option is a flag: it may stand anywhere on the command line, before or after paths,
and never takes the next argument as its value.

Registered through the ``pytest11`` entry point ``aigcheck``. Without the option the
plugin does nothing and imports nothing (torch included), so it costs test sessions
that do not use it nothing.

With it, ``pytest_configure`` sets the strict mode and calls ``runtime_guard.install()``,
so registrations made through ``torch.compiler.allow_in_graph`` from then on are guarded.

What fails when, in ``raise`` mode: until collection ends (``conftest.py`` and test
modules importing your package) a violation is recorded, not raised
(``registry.deferring()``), so no collection error hides the rest; each later call of a
function with such a violation raises it, failing the tests that use the function and no
other. A violation found while a test runs (a registration it makes, a call it traces)
fails that test at once. The terminal summary lists every violation of the session, and
one found at import fails the session (exit status 1) even where no test used it.
Ordering limitation: a module imported *before* the plugin is configured (a
``conftest.py`` import chain runs after it; another plugin that imports your package at
its own load may run before) keeps its unguarded registrations (``install()`` checks them
when it runs, as found at import, but cannot guard their calls), and so does code that
bound ``from torch._dynamo import allow_in_graph`` before ``install()``. Set
``AIGCHECK_STRICT`` and call ``runtime_guard.install()`` at the top of your package to be
independent of plugin order.
"""

from __future__ import annotations

import argparse
import contextlib
from typing import Any

import pytest

_MODES = ("warn", "raise")

#: The remedy where torch is missing; the Makefile pins the torch a clone is tested with.
_NEEDS_TORCH = (
    'needs torch, which is not installed: pip install "aigcheck[runtime]" '
    '(in a clone of aigcheck: pip install -e ".[runtime]" torch==2.13.0)'
)


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("aigcheck", "allow_in_graph contract checks")
    # `--aig-strict` is a flag, so it never takes the next argument (`--aig-strict tests`
    # keeps `tests` a path). The mode is spelled `--aig-strict=warn`: argparse matches a
    # whole option string before it splits at '=', so each spelling is an option of its own.
    group.addoption(
        "--aig-strict",
        *(f"--aig-strict={mode}" for mode in _MODES),
        action=_StrictAction,
        nargs=0,
        dest="aig_strict",
        default=None,
        help="guard torch.compiler.allow_in_graph registrations: --aig-strict (raise) or --aig-strict=warn",
    )


class _StrictAction(argparse.Action):
    """Stores the mode named by the option string used: ``--aig-strict`` is ``raise``."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: object,
        option_string: str | None = None,
    ) -> None:
        _, _, mode = (option_string or "").partition("=")
        setattr(namespace, self.dest, mode or "raise")


def pytest_configure(config: pytest.Config) -> None:
    mode = config.getoption("aig_strict")
    if mode is None:
        return
    try:
        import runtime_guard.api  # only now: the guard imports torch
    except ModuleNotFoundError as error:
        if error.name != "torch":
            raise
        option = "--aig-strict" if mode == "raise" else f"--aig-strict={mode}"
        raise pytest.UsageError(f"{option} {_NEEDS_TORCH}") from None
    config.stash[_SAVED] = runtime_guard.get_strict()
    config.stash[_SESSION] = _Session(mode)  # before install(): it checks earlier registrations
    runtime_guard.set_strict(mode)
    runtime_guard.install()


class _Session:
    """The guard's part of one session: raising deferred until collection ends, and what
    was found meanwhile."""

    def __init__(self, mode: str) -> None:
        from runtime_guard.registry import registry

        self.mode = mode
        self._deferral = contextlib.ExitStack()
        self.at_import = self._deferral.enter_context(registry.deferring())

    def collected(self) -> None:
        self._deferral.close()


def pytest_collection_finish(session: pytest.Session) -> None:
    if _SESSION in session.config.stash:
        session.config.stash[_SESSION].collected()


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    state = session.config.stash.get(_SESSION, None)
    if state is not None and state.mode == "raise" and state.at_import and exitstatus == pytest.ExitCode.OK:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    state = config.stash.get(_SESSION, None)
    if state is None or state.mode != "raise":
        return  # warn mode: pytest's warnings summary lists the ContractWarnings
    from runtime_guard.registry import registry

    found = registry.violations()
    if not found:
        return
    terminalreporter.section(
        f"aigcheck: {len(found)} allow_in_graph contract violation(s) in strict mode 'raise', "
        f"{len(state.at_import)} found at import"
    )
    for violation in found:
        terminalreporter.line(violation.message)
    if state.at_import:
        terminalreporter.line(
            "aigcheck: violations found at import fail the session (exit status 1) even where no test calls "
            "the function; fix them, or see them without failing with --aig-strict=warn"
        )


def pytest_unconfigure(config: pytest.Config) -> None:
    if _SAVED not in config.stash:
        return
    import runtime_guard

    config.stash[_SESSION].collected()
    runtime_guard.uninstall()
    runtime_guard.set_strict(config.stash[_SAVED])


def pytest_report_header(config: pytest.Config) -> str | None:
    mode = config.getoption("aig_strict")
    return f"aigcheck: allow_in_graph strict mode {mode!r}" if mode else None


_SAVED: pytest.StashKey[Any] = pytest.StashKey()
_SESSION: pytest.StashKey[_Session] = pytest.StashKey()
