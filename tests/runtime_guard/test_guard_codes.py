"""The guard reports the checker's codes, named as the one code table names them, and
words a mistake both halves find with the checker's message type for it."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
import torch

import runtime_guard as rg
from checker.api import check_source
from checker.spec.catalog import BY_CODE
from checker.spec.messages import ArgumentValueUnproxyable
from runtime_guard import Violation

GUARD = Path(__file__).resolve().parents[2] / "runtime_guard"
_CODE = re.compile(r"AIG\d{3}")


def _codes_in_guard_sources() -> set[str]:
    """Every AIG code written in a string anywhere in runtime_guard's sources."""
    found: set[str] = set()
    for path in GUARD.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                found.update(_CODE.findall(node.value))
    return found


def test_the_guard_reports_only_codes_of_the_table() -> None:
    codes = _codes_in_guard_sources()
    assert codes, "the guard's sources name no code at all: the scan is broken"
    assert codes <= BY_CODE.keys(), f"codes the table does not know: {sorted(codes - BY_CODE.keys())}"


@pytest.mark.parametrize("code", sorted(_codes_in_guard_sources()))
def test_a_violation_is_named_and_worded_as_the_table_says(code: str) -> None:
    violation = Violation(code, "pkg.f", "pkg.py:3", "what was found")
    assert violation.name == BY_CODE[code].name
    assert f"{code} {BY_CODE[code].name}:" in violation.message


def test_the_guard_keeps_no_copy_of_the_table() -> None:
    """No dict literal in runtime_guard maps codes to names (the copy that used to drift)."""
    for path in GUARD.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Dict):
                pairs = [
                    (key.value, value.value)
                    for key, value in zip(node.keys, node.values, strict=True)
                    if isinstance(key, ast.Constant) and isinstance(value, ast.Constant)
                ]
                names = [
                    (k, v)
                    for k, v in pairs
                    if isinstance(k, str) and _CODE.fullmatch(k) and v in {info.name for info in BY_CODE.values()}
                ]
                assert not names, f"{path.name}:{node.lineno} repeats the code table"


W = torch.ones(4)
SCALE = 2.0


def weighted(x: torch.Tensor) -> torch.Tensor:
    return x * W


def scaled(x: torch.Tensor) -> torch.Tensor:
    return x * SCALE


def set_scale(value: float) -> None:
    global SCALE
    SCALE = value


#: The same functions, as the checker reads them.
STATIC = """
import torch

W = torch.ones(4)
SCALE = 2.0

@torch.compiler.allow_in_graph
def weighted(x):
    return x * W

@torch.compiler.allow_in_graph
def scaled(x):
    return x * SCALE

def set_scale(value):
    global SCALE
    SCALE = value
"""


def _guarded(fn: object) -> rg.ContractWarning:
    with rg.strict("warn"), pytest.warns(rg.ContractWarning) as caught:
        rg.allow_in_graph(fn)
    [warning] = [w.message for w in caught if isinstance(w.message, rg.ContractWarning)]
    return warning


@pytest.mark.parametrize(("fn", "code"), [(weighted, "AIG301"), (scaled, "AIG302")], ids=["AIG301", "AIG302"])
def test_a_capture_is_worded_as_the_checker_words_it(fn: object, code: str) -> None:
    """The guard builds the checker's message type (ReadsCapturedTensor, ReadsChangingState):
    what differs is only what each half can see (the line a name is bound at, the value it
    holds), never the clause or the fix."""
    warning = _guarded(fn)
    [static] = [f.message for f in check_source(STATIC).findings if f.code == code]
    assert warning.code == code
    name = fn.__name__  # type: ignore[attr-defined]
    assert static.startswith(f"{name}: reads ") and warning.detail.startswith("reads ")
    assert warning.detail.count("; ") == static.count("; ") == 2
    assert warning.detail.split("; ")[1:] == static.split("; ")[1:]


def project(x: torch.Tensor, layer: torch.nn.Module) -> torch.Tensor:
    return layer(x)


def test_a_value_at_the_boundary_is_worded_by_its_message_type() -> None:
    """What the guard finds in a call's values is worded by the message types, like the rules' findings."""
    with rg.strict("warn"):
        guarded = rg.allow_in_graph(project)
        with pytest.warns(rg.ContractWarning) as caught:
            guarded(torch.ones(2), torch.nn.Identity())
    [warning] = [w.message for w in caught if isinstance(w.message, rg.ContractWarning)]
    expected = ArgumentValueUnproxyable(
        "argument 'layer'", "a torch.nn.modules.linear.Identity", "Failed to convert args/kwargs to proxy"
    )
    assert (warning.code, warning.detail) == (expected.code, expected.text())
