"""The contract model: consistent data that both halves of aigcheck can rely on."""

from __future__ import annotations

import pytest

from checker.spec import contract
from checker.spec.contract import Clause, Verdict


def test_documented_arguments_are_exactly_the_documented_list() -> None:
    assert contract.DOCUMENTED_ARGUMENTS == {
        "torch.Tensor", "builtins.int", "builtins.float", "builtins.bool", "builtins.NoneType",
        "builtins.list", "builtins.tuple", "torch.dtype", "torch.device",
    }  # fmt: skip
    for name in ("Tensor", "int", "bool", "float", "None", "torch.dtype", "torch.device"):
        assert name in contract.CLAUSE_TEXT[Clause.INPUTS]


@pytest.mark.parametrize(
    "table", [contract.ARGUMENTS, contract.RESULTS, contract.RESULT_ELEMENTS, contract.USER_CLASSES]
)
def test_every_entry_cites_evidence(table: dict) -> None:
    for key, entry in table.items():
        assert entry.evidence, f"{key} has no evidence"
        assert entry.verdict is not Verdict.UNKNOWN


def test_aliases_lead_to_known_names() -> None:
    known = set(contract.ARGUMENTS) | set(contract.RESULTS)
    for alias, name in contract.ALIASES.items():
        assert name in known, f"{alias} -> {name} is in no table"
        assert alias not in known, f"{alias} is both an alias and a canonical name"


@pytest.mark.parametrize(
    ("qualified", "verdict"),
    [
        ("torch.nn.Parameter", Verdict.DOCUMENTED),
        ("typing.List", Verdict.DOCUMENTED),
        ("builtins.str", Verdict.WORKS),
        ("torch.Size", Verdict.WORKS),
        ("torch.nn.modules.module.Module", Verdict.GRAPH_BREAK),
        ("typing.Callable", Verdict.GRAPH_BREAK),
        ("numpy.ndarray", Verdict.HARD_ERROR),
        ("mypackage.Config", Verdict.UNKNOWN),
    ],
)
def test_argument_verdicts(qualified: str, verdict: Verdict) -> None:
    assert contract.argument(qualified).verdict is verdict


@pytest.mark.parametrize(
    ("qualified", "inside", "verdict"),
    [
        ("torch.Tensor", False, Verdict.DOCUMENTED),
        ("builtins.float", False, Verdict.BAKED),
        ("builtins.int", False, Verdict.GRAPH_BREAK),
        ("builtins.int", True, Verdict.BAKED),
        ("builtins.dict", False, Verdict.GRAPH_BREAK),
        ("torch.Size", False, Verdict.WORKS),
    ],
)
def test_result_verdicts(qualified: str, inside: bool, verdict: Verdict) -> None:
    assert contract.result(qualified, inside_container=inside).verdict is verdict


def test_only_documented_and_working_verdicts_are_acceptable() -> None:
    assert {v for v in Verdict if v.acceptable} == {Verdict.DOCUMENTED, Verdict.WORKS}


def test_contract_is_standard_library_only() -> None:
    import ast
    import sys
    from pathlib import Path

    tree = ast.parse(Path(contract.__file__).read_text())
    imported = {
        alias.name.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names
    }
    imported |= {
        node.module.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module
    }
    assert imported <= set(sys.stdlib_module_names) | {"__future__"}
