"""A ``# noqa`` on the line registering an installed package's function suppresses the
finding made there (checker/passes/installed_findings.py), so ``--report-unused-noqa`` does
not call it unused: the package's file is checked apart from the registering one, and tells
the run which of the registering file's comments it used (checker/passes/paths.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from projects import write

from checker.api import check_paths
from checker.command import cli

SITE = "venv/lib/python3.11/site-packages"

EXTPKG = {
    "venv/pyvenv.cfg": "home = /usr/bin\n",
    f"{SITE}/extpkg/__init__.py": """
        import torch

        W = torch.ones(3)


        def rearrange(x):
            return x * W
    """,
    f"{SITE}/extpkg/sub/__init__.py": "",
    f"{SITE}/extpkg/sub/ops.py": """
        import torch

        W = torch.ones(2)


        def op(x):
            return x * W
    """,
}

#: Spellings of a registration of an installed package's function.
SPELLINGS = {
    "from-import": ("from extpkg import rearrange", "rearrange"),
    "renamed": ("from extpkg import rearrange as r", "r"),
    "module-as": ("import extpkg as e", "e.rearrange"),
    "dotted": ("import extpkg", "extpkg.rearrange"),
    "from-submodule": ("from extpkg.sub.ops import op", "op"),
    "submodule-attribute": ("from extpkg.sub import ops", "ops.op"),
}


@pytest.fixture(autouse=True)
def no_active_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No ``$VIRTUAL_ENV`` and no ``.venv`` where the run is: each test names its environment."""
    monkeypatch.delenv("VIRTUAL_ENV", raising=False)
    monkeypatch.chdir(tmp_path)


def registering(
    tmp_path: Path, comment: str, import_line: str = "from extpkg import rearrange", target: str = ""
) -> None:
    """proj/ops.py, registering the package's function with ``comment`` on the line (line 4)."""
    target = target or import_line.rpartition(" ")[2]
    write(
        tmp_path,
        {
            **EXTPKG,
            "proj/ops.py": f"import torch\n{import_line}\n\ntorch.compiler.allow_in_graph({target})  {comment}\n",
        },
    )


def unused(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, list[str]]:
    """The exit status of ``aigcheck --report-unused-noqa *argv`` and the lines it prints (no summary)."""
    status = cli.main(["--isolated", "--python-environment", "venv", "--report-unused-noqa", *argv])
    lines = capsys.readouterr().out.splitlines()
    return status, [line for line in lines if line and not line.startswith(("No findings", "Found "))]


@pytest.mark.parametrize(("import_line", "target"), SPELLINGS.values(), ids=SPELLINGS.keys())
def test_the_noqa_that_suppresses_it_is_used(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], import_line: str, target: str
) -> None:
    registering(tmp_path, "# noqa: AIG301", import_line, target)
    assert unused(capsys, "--no-cache", "proj") == (0, [])


@pytest.mark.parametrize(
    "comment",
    ["# noqa", "# noqa: captured-tensor", "# noqa: AIG301, captured-tensor"],
    ids=["bare", "by-name", "code-and-name"],
)
def test_every_spelling_of_the_noqa_is_used(tmp_path: Path, capsys: pytest.CaptureFixture[str], comment: str) -> None:
    registering(tmp_path, comment)
    assert unused(capsys, "--no-cache", "proj") == (0, [])


def test_a_file_level_noqa_is_used(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(
        tmp_path,
        {
            **EXTPKG,
            "proj/ops.py": "# aigcheck: noqa: AIG301\nimport torch\nfrom extpkg import rearrange\n\ntorch.compiler.allow_in_graph(rearrange)\n",
        },
    )
    assert unused(capsys, "--no-cache", "proj") == (0, [])


def test_another_code_on_the_line_is_still_unused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    registering(tmp_path, "# noqa: AIG301, AIG501")
    assert unused(capsys, "--no-cache", "proj") == (
        1,
        ["proj/ops.py:4:43: unused noqa: AIG501 suppresses nothing on this line ('# noqa: AIG301, AIG501')"],
    )


def test_a_noqa_for_another_code_alone_is_unused_and_the_finding_stays(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    registering(tmp_path, "# noqa: AIG501")
    status, lines = unused(capsys, "--no-cache", "proj")
    assert status == 1
    assert lines[-1] == "proj/ops.py:4:43: unused noqa: AIG501 suppresses nothing on this line ('# noqa: AIG501')"
    assert [line.split(" ")[:2] for line in lines[:-1]] == [["proj/ops.py:4:1:", "AIG301"]]


def test_each_registering_file_has_its_own_noqa(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The function registered in two files: one's noqa is used there, not in the other (whose finding stays)."""
    registering(tmp_path, "# noqa: AIG301")
    write(
        tmp_path,
        {
            "proj/again.py": "import torch\nimport extpkg\n\ntorch.compiler.allow_in_graph(extpkg.rearrange)  # noqa: AIG501\n"
        },
    )
    status, lines = unused(capsys, "--no-cache", "proj")
    assert status == 1
    assert lines[-1] == "proj/again.py:4:50: unused noqa: AIG501 suppresses nothing on this line ('# noqa: AIG501')"
    assert [line.split(" ")[:2] for line in lines[:-1]] == [["proj/again.py:4:1:", "AIG301"]]


def test_the_file_named_alone(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    registering(tmp_path, "# noqa: AIG301")
    assert unused(capsys, "--no-cache", "proj/ops.py") == (0, [])


def test_with_the_cache(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A run that filled the cache first, then one reporting unused suppressions with it."""
    registering(tmp_path, "# noqa: AIG301, AIG501")
    assert cli.main(["--isolated", "--python-environment", "venv", "--cache-dir", "cache", "proj"]) == 0
    capsys.readouterr()
    want = ["proj/ops.py:4:43: unused noqa: AIG501 suppresses nothing on this line ('# noqa: AIG301, AIG501')"]
    assert unused(capsys, "--cache-dir", "cache", "proj") == (1, want)
    assert unused(capsys, "--cache-dir", "cache", "proj") == (1, want)


def test_with_fix(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    registering(tmp_path, "# noqa: AIG301, AIG501")
    before = (tmp_path / "proj/ops.py").read_text()
    assert unused(capsys, "--no-cache", "--fix", "proj") == (
        1,
        ["proj/ops.py:4:43: unused noqa: AIG501 suppresses nothing on this line ('# noqa: AIG301, AIG501')"],
    )
    assert (tmp_path / "proj/ops.py").read_text() == before


def test_with_a_baseline(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A baseline hides findings, not suppressions: the used noqa stays used, the other code unused."""
    registering(tmp_path, "# noqa: AIG301, AIG501")
    assert (
        cli.main(["--isolated", "--python-environment", "venv", "--no-cache", "--write-baseline", "base.json", "proj"])
        == 0
    )
    capsys.readouterr()
    assert unused(capsys, "--no-cache", "--baseline", "base.json", "proj") == (
        1,
        ["proj/ops.py:4:43: unused noqa: AIG501 suppresses nothing on this line ('# noqa: AIG301, AIG501')"],
    )


@pytest.mark.parametrize("contained", [True, False], ids=["contained", "in-process"])
def test_check_paths_unused_noqa(tmp_path: Path, contained: bool) -> None:
    registering(tmp_path, "# noqa: AIG301, AIG501")
    report = check_paths(
        ["proj"], isolated=True, python_environment=tmp_path / "venv", jobs=1, unused_noqa=True, contained=contained
    )
    assert report.findings == ()
    assert [str(each) for each in report.unused_noqa] == [
        "proj/ops.py:4:43: unused noqa: AIG501 suppresses nothing on this line ('# noqa: AIG301, AIG501')"
    ]
    (ops,) = (file for file in report.files if file.report.path == "proj/ops.py")
    assert ops.report.unused_noqa == report.unused_noqa  # the file's own report says so too
