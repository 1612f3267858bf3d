"""The rule catalogue repeats what the rule classes say, so that a run answered from the
cache never imports them (nor libcst): it must not drift, and they must stay unimported."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from checker import rules
from checker.rules import ALL_RULES
from checker.spec import catalog
from checker.spec.catalog import RuleInfo

REPO = Path(__file__).resolve().parents[2]


def test_the_catalogue_describes_every_rule_class_in_registry_order() -> None:
    described = tuple(RuleInfo(rule.code, rule.name, rule.severity, rule.default_enabled) for rule in ALL_RULES)
    assert catalog.RULES == described, "checker/spec/catalog.py differs from the rule classes: update RULES"


def test_parse_error_is_the_catalogue_entry_of_aig900() -> None:
    assert catalog.PARSE_ERROR in catalog.RULES
    assert rules.RULES_BY_CODE[catalog.PARSE_ERROR.code].__name__ == "ParseError"


def test_the_registry_shares_the_planned_codes() -> None:
    assert rules.PLANNED is catalog.PLANNED


# What only parsing needs: the rules, the analysis, the project's modules, libcst.
HEAVY = (
    "libcst",
    "checker.rules",
    "checker.facts",
    "checker.index.project",
    "checker.output.fixes",
    "checker.reading.positions",
)

_MAIN = f"""
import resource
import sys
from checker.command.cli import main

status = main(sys.argv[1:])
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss > 0)
print(sorted(name for name in sys.modules if name.startswith({HEAVY!r})))
sys.exit(status)
"""


def _run(*args: str) -> tuple[int, str, str]:
    """``aigcheck args`` in a new interpreter: the status, the output, and the heavy modules it imported."""
    return _run_with_workers(*args)[:3]


def _run_with_workers(*args: str) -> tuple[int, str, str, str]:
    """As ``_run``, and whether the run started worker processes ("True"/"False")."""
    done = subprocess.run([sys.executable, "-c", _MAIN, *args], cwd=REPO, capture_output=True, text=True, check=False)
    *output, workers, imported = done.stdout.splitlines() or ["", done.stderr]
    return done.returncode, "\n".join(output), imported, workers


def test_a_run_answered_from_the_cache_imports_neither_the_rules_nor_libcst(tmp_path: Path) -> None:
    tree = tmp_path / "pkg"
    tree.mkdir()
    (tree / "ops.py").write_text(
        "import torch\n\nW = torch.ones(3)\n\n@torch.compiler.allow_in_graph\ndef f(x):\n    return x * W\n"
    )
    (tree / "broken.py").write_text("# allow_in_graph\ndef f(:\n")
    (tree / "plain.py").write_text("x = 1\n")
    args = ["--isolated", "--cache-dir", str(tmp_path / "cache"), "--output-format", "json", "-j", "1", str(tree)]
    status, cold, imported, workers = _run_with_workers(*args)
    assert status == 1
    assert "AIG301" in cold and "AIG900" in cold
    assert (imported, workers) == ("[]", "True")  # parsed, in a worker process: the run is contained
    assert _run_with_workers(*args) == (1, cold, "[]", "False")


def test_importing_the_command_line_imports_neither_the_rules_nor_libcst() -> None:
    assert _run("--version")[2] == "[]"


def test_no_rule_module_repeats_the_table() -> None:
    """A rule class gives its code only: name, severity and default are the table's."""
    import ast

    for path in sorted((REPO / "checker" / "rules").glob("aig*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef):
                assigned = {
                    target.id
                    for statement in node.body
                    if isinstance(statement, (ast.Assign, ast.AnnAssign))
                    for target in (statement.targets if isinstance(statement, ast.Assign) else [statement.target])
                    if isinstance(target, ast.Name)
                }
                repeated = assigned & {"name", "severity", "default_enabled"}
                assert not repeated, f"{path.name}: {node.name} sets {sorted(repeated)}; the code table has them"
