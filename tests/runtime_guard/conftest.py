"""Fixtures for the runtime-guard tests: every test starts from a clean guard and Dynamo."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import torch
import torch._dynamo

import runtime_guard as rg
from runtime_guard import late


@pytest.fixture(autouse=True)
def clean_guard() -> Iterator[None]:
    """Strict mode off, no violations, no patch, no compiled code, before and after each test."""
    rg.set_strict("off")
    rg.registry.clear_violations()
    torch._dynamo.reset()
    late.baseline()  # what earlier tests registered with torch is not this test's late registration
    yield
    rg.uninstall()
    rg.set_strict("off")
    rg.registry.clear_violations()
    torch._dynamo.reset()
