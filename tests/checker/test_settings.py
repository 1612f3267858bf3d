"""One ``Settings`` per run: built once from the options, the configuration and the
selection, and the only thing below ``run.check`` that answers a per-file question."""

from __future__ import annotations

import ast
import inspect
import io
import sys
from pathlib import Path

import pytest

from checker.command import cli
from checker.configuration import settings as settings_module
from checker.configuration.options import RunOptions
from checker.configuration.settings import Settings, settings
from checker.reading.discovery import Source

CHECKER = Path(__file__).resolve().parents[2] / "checker"
#: The layers below the command line and its configuration: none of them is handed the options.
BELOW_THE_OPTIONS = ("passes", "index", "facts", "rules", "reading", "output", "spec")

CAPTURE = "import torch\nW = torch.ones(3)\n@torch.compiler.allow_in_graph\ndef f(x):\n    return x * W\n"


def project(root: Path, table: str = "") -> Path:
    (root / "pyproject.toml").write_text(f"[tool.aigcheck]\n{table}\n", encoding="utf-8")
    for name in ("pkg/a.py", "pkg/b.py", "tests/test_a.py", "generated/c.py"):
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(CAPTURE, encoding="utf-8")
    return root


@pytest.mark.parametrize("question", ["excluded", "codes_for"])
def test_a_per_file_question_takes_only_the_source(question: str) -> None:
    assert list(inspect.signature(getattr(Settings, question)).parameters) == ["self", "source"]


@pytest.mark.parametrize("layer", BELOW_THE_OPTIONS)
def test_no_layer_below_the_configuration_is_handed_the_options(layer: str) -> None:
    mentions = [
        f"{path.relative_to(CHECKER)}:{node.lineno}"
        for path in sorted((CHECKER / layer).rglob("*.py"))
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if (isinstance(node, ast.Name) and node.id == "RunOptions")
        or (isinstance(node, ast.Attribute) and node.attr == "RunOptions")
        or (isinstance(node, ast.alias) and node.name.rpartition(".")[2] in ("RunOptions", "options"))
    ]
    assert mentions == []


def test_the_per_file_functions_of_the_configuration_are_not_handed_the_options() -> None:
    """Only :func:`settings` (which builds the one Settings) reads the options."""
    tree = ast.parse(Path(settings_module.__file__).read_text(encoding="utf-8"))
    readers = sorted(
        node.name
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef) and "RunOptions" in ast.unparse(node.args)
    )
    assert readers == ["settings"]


@pytest.mark.parametrize(
    "argv",
    [
        pytest.param(["pkg", "tests"], id="walked"),
        pytest.param(["pkg/a.py", "pkg/b.py"], id="named"),
        pytest.param(["--stdin-filename", "pkg/s.py", "-"], id="stdin"),
        pytest.param(["--force-exclude", "--exclude", "tests", "pkg", "tests/test_a.py"], id="force-exclude"),
    ],
)
def test_one_settings_per_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], argv: list[str]
) -> None:
    project(tmp_path, 'per-file-ignores = {"tests/*" = ["AIG3"]}')
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(CAPTURE.encode())))
    built: list[Settings] = []
    real = Settings.__init__

    def counting(self: Settings, *args: object, **kwargs: object) -> None:
        built.append(self)
        real(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Settings, "__init__", counting)
    assert cli.main(["--no-cache", "-q", *argv]) == 1, capsys.readouterr().err
    assert len(built) == 1


class TestPerFileQuestions:
    def test_per_file_ignores_take_codes_off_a_file(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.chdir(project(tmp_path, 'per-file-ignores = {"tests/*" = ["AIG3"]}'))
        run = settings(RunOptions(paths=(".",)))
        assert "AIG301" in run.codes_for(Source("pkg/a.py", "pkg/a.py"))
        assert "AIG301" not in run.codes_for(Source("tests/test_a.py", "tests/test_a.py"))

    def test_standard_input_is_judged_by_its_stdin_filename(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        monkeypatch.chdir(project(tmp_path, 'per-file-ignores = {"tests/*" = ["AIG3"]}'))
        stdin = Source(None, "tests/test_s.py")
        assert "AIG301" not in settings(RunOptions(paths=("-",), stdin_filename="tests/test_s.py")).codes_for(stdin)
        assert "AIG301" in settings(RunOptions(paths=("-",))).codes_for(stdin)

    @pytest.mark.parametrize(
        ("options", "explicit", "expected"),
        [
            pytest.param(RunOptions(), False, True, id="walked-anchored"),
            pytest.param(RunOptions(), True, False, id="named"),
            pytest.param(RunOptions(force_exclude=True), True, True, id="named-force-exclude"),
            pytest.param(RunOptions(force_exclude=True, isolated=True), True, False, id="isolated"),
            pytest.param(
                RunOptions(force_exclude=True, isolated=True, exclude=("generated",)), True, True, id="command-line"
            ),
        ],
    )
    def test_excluded(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, options: RunOptions, explicit: bool, expected: bool
    ) -> None:
        monkeypatch.chdir(project(tmp_path, 'exclude = ["generated/*.py"]'))
        assert settings(options).excluded(Source("generated/c.py", "generated/c.py", explicit=explicit)) is expected


class TestCacheDigest:
    def test_the_same_configuration_gives_the_same_digest(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        monkeypatch.chdir(project(tmp_path, 'select = ["AIG3"]'))
        assert settings(RunOptions()).cache_digest == settings(RunOptions(output_format="json")).cache_digest

    def test_a_setting_that_changes_results_changes_it(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.chdir(project(tmp_path, 'select = ["AIG3"]'))
        before = settings(RunOptions()).cache_digest
        project(tmp_path, 'select = ["AIG3"]\nper-file-ignores = {"tests/*" = ["AIG3"]}')
        assert settings(RunOptions()).cache_digest != before


def test_render_options_come_from_the_options_over_the_configuration(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(project(tmp_path, 'output-format = "json"'))
    rendering = settings(RunOptions(statistics=True, show_source=False)).rendering
    assert (rendering.output_format, rendering.statistics, rendering.show_source) == ("json", True, False)
    assert settings(RunOptions(output_format="sarif")).rendering.output_format == "sarif"
