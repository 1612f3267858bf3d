"""Evidence from beside a src-layout package (issue 22, class 7): scripts, tests and
examples that change ``config.X`` after ``from pkg import config`` make AIG302 evidence
when they are among the checked files (checker/reading/environment.py: the project's import
roots and the run's checked paths; checker/index/change_scan.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from projects import assert_marked, run, write

PACKAGE = {
    "pyproject.toml": '[project]\nname = "pkg"\n',
    "src/pkg/__init__.py": "",
    "src/pkg/config.py": """
        SCALE = 1.0
        USE_FAST = True
    """,
    "src/pkg/ops.py": """
        import torch
        from pkg import config


        @torch.compiler.allow_in_graph
        def scaled(x):
            return x * config.SCALE{marker}
    """,
}

#: Spellings of a change of ``config.SCALE`` from a file beside the package; whether it is one.
CHANGES = {
    "from-package-import-module": ("from pkg import config\nconfig.SCALE = 5.0\n", True),
    "import-module-as": ("import pkg.config as c\nc.SCALE = 5.0\n", True),
    "dotted": ("import pkg.config\npkg.config.SCALE *= 2\n", True),
    "in-a-function": ("from pkg import config\n\n\ndef main():\n    config.SCALE = 2.0\n", True),
    "from-import-is-a-copy": ("from pkg.config import SCALE\nSCALE = 5.0\n", False),
    "another-package's-config": ("from other import config\nconfig.SCALE = 5.0\n", False),
}


def project(root: Path, beside: str, change: str, evidence: bool) -> Path:
    marker = "  # AIG302" if evidence else ""
    files = {**PACKAGE, "src/pkg/ops.py": PACKAGE["src/pkg/ops.py"].replace("{marker}", marker)}
    write(root, {**files, beside: change, "src/other/__init__.py": "", "src/other/config.py": "SCALE = 1\n"})
    return root


def findings_in_ops(root: Path, *paths: str) -> list[object]:
    status, findings = run("--isolated", "--no-cache", *(str(root / path) for path in paths))
    assert status in (0, 1)
    return [finding for finding in findings if finding.path.endswith("ops.py")]  # type: ignore[attr-defined]


@pytest.mark.parametrize(("change", "evidence"), CHANGES.values(), ids=CHANGES.keys())
@pytest.mark.parametrize("beside", ["scripts/run.py", "tests/test_ops.py", "examples/demo.py", "run.py"])
def test_a_checked_file_beside_the_package_is_evidence(
    tmp_path: Path, beside: str, change: str, evidence: bool
) -> None:
    root = project(tmp_path, beside, change, evidence)
    assert_marked(root, findings_in_ops(root, "."), "src/pkg/ops.py")


@pytest.mark.parametrize("beside", ["scripts/run.py", "tests/test_ops.py"])
def test_both_folders_named(tmp_path: Path, beside: str) -> None:
    root = project(tmp_path, beside, *CHANGES["from-package-import-module"])
    assert_marked(root, findings_in_ops(root, "src", beside.partition("/")[0]), "src/pkg/ops.py")
    assert_marked(root, findings_in_ops(root, "src", beside), "src/pkg/ops.py")  # (a file named)


def test_a_file_beside_that_is_not_checked_is_no_evidence(tmp_path: Path) -> None:
    """The docs promise evidence from the checked files only: checking ``src/`` alone
    reads nothing of ``scripts/``."""
    root = project(tmp_path, "scripts/run.py", *CHANGES["from-package-import-module"])
    assert findings_in_ops(root, "src") == []
    assert findings_in_ops(root, "src/pkg") == []


def test_a_script_resolves_the_package_beside_it(tmp_path: Path) -> None:
    """The script's own registered function reads the package's tensor: AIG301 through
    ``from pkg import weights``, as inside the package."""
    write(
        tmp_path,
        {
            "pyproject.toml": "",
            "src/pkg/__init__.py": "",
            "src/pkg/weights.py": "import torch\n\nW = torch.ones(3)\n",
            "scripts/run.py": """
                import torch
                from pkg import weights
                from pkg.weights import W


                @torch.compiler.allow_in_graph
                def f(x):
                    return x * weights.W + W  # AIG301 AIG301
            """,
        },
    )
    status, findings = run("--isolated", "--no-cache", str(tmp_path / "scripts"))
    assert_marked(tmp_path, findings, "scripts/run.py")


def test_a_cached_answer_sees_the_script_change(tmp_path: Path) -> None:
    root = project(tmp_path, "scripts/run.py", "from pkg import config\nprint(config.SCALE)\n", False)
    cached = ["--isolated", "--cache-dir", str(tmp_path / "cache"), str(root)]
    assert run(*cached)[1] == []
    (root / "scripts/run.py").write_text("from pkg import config\nconfig.SCALE = 3.0\n")
    assert [finding.code for finding in run(*cached)[1]] == ["AIG302"]
