"""The guard tells functions apart by identity, as Dynamo does, never by code-object equality.

Code objects compare by value (the filename is not compared), so two modules with the same
``def`` on the same line, or a module and its reload, have equal but distinct code objects.
Dynamo guards a registered function on the identity of its ``__code__`` and recompiles for
the second one; under the guard each program must compute what it computes with torch.
"""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest
import torch
from guard_modes import MODES, importable, outcome, write_module

SCALE = """
import torch

@torch.compiler.allow_in_graph
def scale(x, k={k}):
    return x * k
"""


@pytest.mark.parametrize("mode", MODES[1:])
def test_equal_defs_in_two_modules_compute_as_with_torch(tmp_path: Path, mode: str) -> None:
    def program(tag: str) -> tuple[list[float], list[float]]:
        write_module(tmp_path, f"first_{tag}", SCALE.format(k=2.0))
        write_module(tmp_path, f"second_{tag}", SCALE.format(k=3.0))
        with importable(tmp_path):
            first = importlib.import_module(f"first_{tag}")
            second = importlib.import_module(f"second_{tag}")
            assert first.scale.__code__ == second.scale.__code__  # equal, not the same
            run = torch.compile(lambda fn, x: fn(x), backend="inductor")
            x = torch.ones(2)
            return run(first.scale, x).tolist(), run(second.scale, x).tolist()

    expected = outcome(program, "torch")
    assert expected == (([2.0, 2.0], [3.0, 3.0]), [])
    assert outcome(program, mode) == expected


@pytest.mark.parametrize("mode", MODES[1:])
def test_a_reload_that_changes_a_default_computes_as_with_torch(tmp_path: Path, mode: str) -> None:
    def program(tag: str) -> tuple[list[float], list[float]]:
        name = f"reloaded_{tag}"
        write_module(tmp_path, name, SCALE.format(k=2.0))
        with importable(tmp_path):
            module = importlib.import_module(name)
            run = torch.compile(lambda fn, x: fn(x), backend="inductor")
            x = torch.ones(2)
            before = run(module.scale, x).tolist()
            write_module(tmp_path, name, SCALE.format(k=3.0))
            module = importlib.reload(module)
            return before, run(module.scale, x).tolist()

    expected = outcome(program, "torch")
    assert expected == (([2.0, 2.0], [3.0, 3.0]), [])
    assert outcome(program, mode) == expected  # no AIG401: a reload is not a re-created closure
