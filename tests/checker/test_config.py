"""``[tool.aigcheck]`` in pyproject.toml: finding it, checking it, and what it does to a run."""

from __future__ import annotations

import io
import os
import sys
from pathlib import Path

import pytest

from checker.command import cli
from checker.configuration.config import Config, ConfigError, find_config, load_config, matches, search_start
from checker.spec.findings import Severity

# AIG301 (error) on line 8, AIG407 (info, fixable) on line 6, AIG501 (warning) on line 13.
SOURCE = """\
import torch

w = torch.ones(3)


@torch._dynamo.allow_in_graph
def f(x):
    return x * w


@torch.compiler.allow_in_graph
def g(x, s: str):
    print(x)
    return x
"""


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def project(root: Path, table: str) -> Path:
    """A project with ``[tool.aigcheck]`` holding ``table`` and ``pkg/model.py``."""
    write(root / "pyproject.toml", f"[project]\nname = 'demo'\n\n[tool.aigcheck]\n{table}\n")
    write(root / "pkg" / "model.py", SOURCE)
    return root


def codes(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, list[str], str]:
    """The exit status, the codes found (in order) and stderr of an in-process run."""
    status = cli.main(["--output-format", "text", "-q", *argv])
    captured = capsys.readouterr()
    return status, [line.split()[1] for line in captured.out.splitlines()], captured.err


@pytest.fixture
def cwd(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


class TestFinding:
    def test_nearest_with_the_table_wins(self, tmp_path: Path) -> None:
        write(tmp_path / "pyproject.toml", "[tool.aigcheck]\nselect = ['AIG3']\n")
        write(tmp_path / "sub" / "pyproject.toml", "[tool.aigcheck]\nselect = ['AIG4']\n")
        (tmp_path / "sub" / "deeper").mkdir()
        assert find_config(tmp_path / "sub" / "deeper") == tmp_path / "sub" / "pyproject.toml"

    def test_a_pyproject_without_the_table_is_passed_over(self, tmp_path: Path) -> None:
        write(tmp_path / "pyproject.toml", "[tool.aigcheck]\nselect = ['AIG3']\n")
        write(tmp_path / "sub" / "pyproject.toml", "[project]\nname = 'sub'\n")
        assert find_config(tmp_path / "sub") == tmp_path / "pyproject.toml"

    def test_none_found(self, tmp_path: Path) -> None:
        write(tmp_path / "pyproject.toml", "[tool.ruff]\nline-length = 100\n")
        assert find_config(tmp_path) is None

    @pytest.mark.parametrize(
        ("paths", "stdin_filename", "expected"),
        [
            pytest.param(["a/x.py"], None, "a", id="file-counts-as-its-directory"),
            pytest.param(["a/b"], None, "a/b", id="directory-itself"),
            pytest.param(["a/b/x.py", "a/c"], None, "a", id="common-parent-of-several"),
            pytest.param(["-"], None, ".", id="stdin-is-the-working-directory"),
            pytest.param(["-"], "a/b/x.py", "a/b", id="stdin-named-by-stdin-filename"),
        ],
    )
    def test_search_start(self, cwd: Path, paths: list[str], stdin_filename: str | None, expected: str) -> None:
        (cwd / "a" / "b").mkdir(parents=True)
        (cwd / "a" / "c").mkdir()
        write(cwd / "a" / "x.py", "")
        write(cwd / "a" / "b" / "x.py", "")
        assert search_start(paths, stdin_filename) == Path(os.path.normpath(os.path.join(os.getcwd(), expected)))

    def test_for_a_run_over_a_sub_directory(self, cwd: Path, capsys: pytest.CaptureFixture[str]) -> None:
        project(cwd, "select = ['AIG301']")
        assert codes(capsys, "pkg") == (1, ["AIG301"], "")

    def test_for_a_run_from_below_the_project(
        self, cwd: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
    ) -> None:
        project(cwd, "select = ['AIG501']")
        monkeypatch.chdir(cwd / "pkg")
        assert codes(capsys, "model.py") == (1, ["AIG501"], "")

    def test_for_stdin(self, cwd: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
        project(cwd, "select = ['AIG407']")
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(SOURCE.encode())))
        assert codes(capsys, "-") == (0, ["AIG407"], "")

    def test_explicit_config(self, cwd: Path, capsys: pytest.CaptureFixture[str]) -> None:
        project(cwd, "select = ['AIG501']")
        write(cwd / "other.toml", "[tool.aigcheck]\nselect = ['AIG301']\n")
        assert codes(capsys, "--config", "other.toml", "pkg") == (1, ["AIG301"], "")

    def test_explicit_config_without_the_table_is_an_error(self, cwd: Path, capsys: pytest.CaptureFixture[str]) -> None:
        write(cwd / "other.toml", "[tool.ruff]\n")
        write(cwd / "m.py", SOURCE)
        assert codes(capsys, "--config", "other.toml", "m.py") == (
            2,
            [],
            "aigcheck: error: other.toml: has no [tool.aigcheck] table\n",
        )

    def test_explicit_config_that_does_not_exist(self, cwd: Path, capsys: pytest.CaptureFixture[str]) -> None:
        write(cwd / "m.py", SOURCE)
        status, _, err = codes(capsys, "--config", "nope.toml", "m.py")
        assert status == 2
        assert err == "aigcheck: error: nope.toml: cannot read the file: No such file or directory\n"

    @pytest.mark.parametrize("flag", ["--isolated", "--no-config"])
    def test_isolated_ignores_the_configuration(self, cwd: Path, capsys: pytest.CaptureFixture[str], flag: str) -> None:
        project(cwd, "select = ['AIG999']")  # invalid, and never read
        assert codes(capsys, flag, "pkg") == (1, ["AIG407", "AIG301", "AIG501"], "")

    def test_config_and_isolated_exclude_each_other(self, cwd: Path, capsys: pytest.CaptureFixture[str]) -> None:
        status, _, err = codes(capsys, "--config", "x.toml", "--isolated")
        assert status == 2
        assert "not allowed with argument" in err


class TestSettings:
    @pytest.mark.parametrize(
        ("table", "argv", "expected"),
        [
            pytest.param("", [], ["AIG407", "AIG301", "AIG501"], id="no-keys-default-rules"),
            pytest.param("select = ['AIG3', 'AIG5']", [], ["AIG301", "AIG501"], id="select-replaces"),
            pytest.param("ignore = ['captured-tensor']", [], ["AIG407", "AIG501"], id="ignore-a-name"),
            pytest.param(
                "extend-select = ['AIG105']", [], ["AIG407", "AIG301", "AIG105", "AIG501"], id="extend-select"
            ),
            pytest.param("doc-strict = true", [], ["AIG407", "AIG301", "AIG105", "AIG501"], id="doc-strict"),
            pytest.param("select = ['AIG3']", ["--select", "AIG5"], ["AIG501"], id="cli-select-replaces-config"),
            pytest.param(
                "ignore = ['AIG301']", ["--select", "AIG3"], ["AIG301"], id="cli-select-discards-config-ignore"
            ),
            pytest.param("select = ['AIG3']", ["--extend-select", "AIG5"], ["AIG301", "AIG501"], id="cli-extends"),
            pytest.param("select = ['AIG3', 'AIG5']", ["--ignore", "AIG5"], ["AIG301"], id="cli-ignore-narrows"),
            pytest.param("", ["--doc-strict", "--select", "AIG1"], ["AIG105"], id="cli-doc-strict-prefix"),
        ],
    )
    def test_selection(
        self, cwd: Path, capsys: pytest.CaptureFixture[str], table: str, argv: list[str], expected: list[str]
    ) -> None:
        project(cwd, table)
        assert codes(capsys, *argv, "pkg")[1] == expected

    @pytest.mark.parametrize(
        ("table", "argv", "status"),
        [
            pytest.param("fail-on = 'error'", [], 1, id="error-found"),
            pytest.param("select = ['AIG407', 'AIG501']\nfail-on = 'error'", [], 0, id="warning-below-error"),
            pytest.param("select = ['AIG407']\nfail-on = 'info'", [], 1, id="info-at-info"),
            pytest.param("select = ['AIG407']\nfail-on = 'info'", ["--fail-on", "warning"], 0, id="cli-overrides"),
        ],
    )
    def test_fail_on(
        self, cwd: Path, capsys: pytest.CaptureFixture[str], table: str, argv: list[str], status: int
    ) -> None:
        project(cwd, table)
        assert codes(capsys, *argv, "pkg")[0] == status

    def test_output_format(self, cwd: Path, capsys: pytest.CaptureFixture[str]) -> None:
        project(cwd, "output-format = 'json'")
        cli.main(["pkg"])
        assert capsys.readouterr().out.startswith("[\n")
        cli.main(["--output-format", "text", "pkg"])
        assert capsys.readouterr().out.startswith("pkg/model.py:6:2: AIG407")


class TestPerFileIgnores:
    @pytest.mark.parametrize(
        ("pattern", "ignored"),
        [
            pytest.param("pkg/model.py", True, id="relative-path"),
            pytest.param("pkg/*", True, id="star"),
            pytest.param("*.py", True, id="star-matches-slashes"),
            pytest.param("model.py", True, id="bare-name-matches-anywhere"),
            pytest.param("**/model.py", True, id="double-star"),
            pytest.param("./pkg/model.py", True, id="dot-slash"),
            pytest.param("other/*", False, id="other-directory"),
            pytest.param("model", False, id="name-without-suffix"),
            pytest.param("PKG/*", False, id="case-sensitive"),
        ],
    )
    def test_patterns(self, cwd: Path, capsys: pytest.CaptureFixture[str], pattern: str, ignored: bool) -> None:
        project(cwd, f'[tool.aigcheck.per-file-ignores]\n"{pattern}" = ["AIG3"]')
        found = codes(capsys, "pkg")[1]
        assert ("AIG301" not in found) is ignored
        assert "AIG501" in found

    def test_relative_to_the_config_directory_wherever_the_run_starts(
        self, cwd: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
    ) -> None:
        project(cwd, '[tool.aigcheck.per-file-ignores]\n"pkg/*" = ["AIG301", "trace-time-side-effect"]')
        monkeypatch.chdir(cwd / "pkg")
        assert codes(capsys, ".")[1] == ["AIG407"]

    def test_stdin_uses_stdin_filename(
        self, cwd: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
    ) -> None:
        project(cwd, '[tool.aigcheck.per-file-ignores]\n"pkg/*" = ["AIG3"]')
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(SOURCE.encode())))
        assert "AIG301" not in codes(capsys, "--stdin-filename", "pkg/new.py", "-")[1]

    def test_several_patterns_add_up(self, cwd: Path, capsys: pytest.CaptureFixture[str]) -> None:
        project(cwd, '[tool.aigcheck.per-file-ignores]\n"pkg/*" = ["AIG3"]\n"*.py" = ["AIG4"]')
        assert codes(capsys, "pkg")[1] == ["AIG501"]


class TestExclude:
    @pytest.fixture
    def tree(self, cwd: Path) -> Path:
        for name in ["pkg/gen/a.py", "pkg/b.py", "gen/c.py"]:
            write(cwd / name, SOURCE)
        return cwd

    def files(self, capsys: pytest.CaptureFixture[str], *argv: str) -> list[str]:
        cli.main(["--select", "AIG301", "-q", *argv])
        return [line.split(":")[0] for line in capsys.readouterr().out.splitlines()]

    @pytest.mark.parametrize(
        ("patterns", "expected"),
        [
            pytest.param("[]", ["gen/c.py", "pkg/b.py", "pkg/gen/a.py"], id="none"),
            pytest.param("['gen']", ["pkg/b.py"], id="name-anywhere"),
            pytest.param("['pkg/gen']", ["gen/c.py", "pkg/b.py"], id="anchored-at-the-config"),
            pytest.param("['/gen/']", ["pkg/b.py", "pkg/gen/a.py"], id="leading-slash-anchors"),
            pytest.param("['pkg/*.py']", ["gen/c.py"], id="star-crosses-directories"),
        ],
    )
    def test_patterns(self, tree: Path, capsys: pytest.CaptureFixture[str], patterns: str, expected: list[str]) -> None:
        write(tree / "pyproject.toml", f"[tool.aigcheck]\nexclude = {patterns}\n")
        assert self.files(capsys, ".") == expected

    def test_anchored_patterns_hold_from_a_sub_directory(
        self, tree: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
    ) -> None:
        write(tree / "pyproject.toml", "[tool.aigcheck]\nexclude = ['pkg/gen']\n")
        monkeypatch.chdir(tree / "pkg")
        assert self.files(capsys, ".") == ["b.py"]

    def test_added_to_the_command_line_and_default_excludes(
        self, tree: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        write(tree / ".venv" / "d.py", SOURCE)
        write(tree / "pyproject.toml", "[tool.aigcheck]\nexclude = ['gen']\n")
        assert self.files(capsys, "--exclude", "b.py", ".") == []

    def test_files_named_explicitly_are_checked(self, tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
        write(tree / "pyproject.toml", "[tool.aigcheck]\nexclude = ['gen', 'pkg/gen']\n")
        assert self.files(capsys, "pkg/gen/a.py") == ["pkg/gen/a.py"]

    @pytest.mark.parametrize(
        ("exclude", "argv", "expected"),
        [
            pytest.param("['pkg/gen']", [], ["gen/c.py", "pkg/b.py"], id="anchored"),
            pytest.param("['gen']", [], ["pkg/b.py"], id="directory-name"),
            pytest.param("['b.py']", [], ["gen/c.py", "pkg/gen/a.py"], id="file-name"),
            pytest.param("[]", ["--exclude", "pkg/*"], ["gen/c.py"], id="command-line-pattern"),
            pytest.param("[]", [], ["gen/c.py", "pkg/b.py", "pkg/gen/a.py"], id="nothing-excluded"),
        ],
    )
    def test_force_exclude_applies_them_to_named_files(
        self, tree: Path, capsys: pytest.CaptureFixture[str], exclude: str, argv: list[str], expected: list[str]
    ) -> None:
        write(tree / "pyproject.toml", f"[tool.aigcheck]\nexclude = {exclude}\n")
        named = ["gen/c.py", "pkg/b.py", "pkg/gen/a.py"]
        assert self.files(capsys, "--force-exclude", *argv, *named) == expected

    def test_force_exclude_applies_the_default_excludes(self, tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
        write(tree / "build" / "d.py", SOURCE)
        assert self.files(capsys, "--force-exclude", "build/d.py", "pkg/b.py") == ["pkg/b.py"]


def error(tmp_path: Path, text: str) -> str:
    """The message of the ConfigError that loading ``text`` as pyproject.toml raises."""
    path = write(tmp_path / "pyproject.toml", text)
    with pytest.raises(ConfigError) as raised:
        load_config(path)
    return str(raised.value)


class TestErrors:
    @pytest.fixture(autouse=True)
    def _cwd(self, cwd: Path) -> None:
        """Messages name the file relative to the working directory."""

    def test_unknown_key_lists_the_valid_keys(self, tmp_path: Path) -> None:
        assert error(tmp_path, "[tool.aigcheck]\nselct = ['AIG301']\n") == (
            "pyproject.toml: [tool.aigcheck] unknown key 'selct' (did you mean 'select'?); valid keys: "
            "doc-strict, exclude, extend-select, fail-on, ignore, installed-packages, output-format, "
            "per-file-ignores, python-environment, select"
        )

    def test_snake_case_is_not_a_key(self, tmp_path: Path) -> None:
        assert "unknown key 'extend_select' (did you mean 'extend-select'?)" in error(
            tmp_path, "[tool.aigcheck]\nextend_select = ['AIG301']\n"
        )

    @pytest.mark.parametrize(
        ("table", "message"),
        [
            pytest.param(
                "select = 'AIG301'",
                "select must be a list of codes, rule names or code prefixes, such as "
                '["AIG301", "captured-mutable-state", "AIG4"]; found a string',
                id="select-string",
            ),
            pytest.param("ignore = [301]", "ignore must be a list of codes", id="ignore-integer-item"),
            pytest.param("exclude = 'build'", "exclude must be a list of glob patterns", id="exclude-string"),
            pytest.param("doc-strict = 'yes'", "doc-strict must be true or false; found a string", id="doc-strict"),
            pytest.param("fail-on = 2", "fail-on must be a string, one of: info, warning, error", id="fail-on-integer"),
            pytest.param("output-format = ['json']", "output-format must be a string, one of:", id="format-array"),
            pytest.param(
                "per-file-ignores = ['tests/*']",
                "per-file-ignores must be a table from a glob pattern to a list",
                id="per-file-ignores-array",
            ),
            pytest.param(
                "per-file-ignores = {'tests/*' = 'AIG3'}",
                'per-file-ignores."tests/*" must be a list of codes',
                id="per-file-ignores-value-string",
            ),
        ],
    )
    def test_wrong_types_name_the_key_and_the_expected_type(self, tmp_path: Path, table: str, message: str) -> None:
        assert error(tmp_path, f"[tool.aigcheck]\n{table}\n").startswith(f"pyproject.toml: [tool.aigcheck] {message}")

    def test_found_type_of_an_array_item(self, tmp_path: Path) -> None:
        assert error(tmp_path, "[tool.aigcheck]\nignore = ['AIG3', 301]\n").endswith(
            "found an array holding an integer"
        )

    @pytest.mark.parametrize(
        ("table", "key", "token"),
        [
            pytest.param("select = ['AIG999']", "select", "AIG999", id="select"),
            pytest.param("extend-select = ['captured-tensors']", "extend-select", "captured-tensors", id="extend"),
            pytest.param("ignore = ['E501']", "ignore", "E501", id="ignore"),
            pytest.param("select = ['AIG301,AIG302']", "select", "AIG301,AIG302", id="comma-in-one-item"),
            pytest.param(
                "per-file-ignores = {'t/*' = ['AIG7']}", 'per-file-ignores."t/*"', "AIG7", id="per-file-ignores"
            ),
        ],
    )
    def test_unknown_codes_list_the_valid_ones(self, tmp_path: Path, table: str, key: str, token: str) -> None:
        message = error(tmp_path, f"[tool.aigcheck]\n{table}\n")
        assert message.startswith(f"pyproject.toml: [tool.aigcheck] {key}: unknown rule '{token}'; use a code")
        assert "AIG301 (captured-tensor)" in message

    @pytest.mark.parametrize(
        ("key", "value"),
        [
            pytest.param("output-format", "xml", id="output-format"),
            pytest.param("fail-on", "never", id="fail-on"),
        ],
    )
    def test_unknown_values(self, tmp_path: Path, key: str, value: str) -> None:
        message = error(tmp_path, f"[tool.aigcheck]\n{key} = '{value}'\n")
        assert message.startswith(f"pyproject.toml: [tool.aigcheck] {key}: unknown value '{value}'; valid values: ")

    def test_empty_select(self, tmp_path: Path) -> None:
        assert "select is empty" in error(tmp_path, "[tool.aigcheck]\nselect = []\n")

    def test_table_of_the_wrong_type(self, tmp_path: Path) -> None:
        assert (
            error(tmp_path, "[tool]\naigcheck = 1\n") == "pyproject.toml: tool.aigcheck must be a table, not an integer"
        )

    def test_invalid_toml_gives_the_file_and_line(self, tmp_path: Path) -> None:
        assert error(tmp_path, "[tool.aigcheck]\nselect = ['AIG301'\n") == (
            "pyproject.toml:2: invalid TOML: Unclosed array (at end of document)"
        )

    def test_invalid_toml_gives_the_column_when_it_can(self, tmp_path: Path) -> None:
        assert error(tmp_path, "[tool.aigcheck]\nselect = \n") == "pyproject.toml:2:10: invalid TOML: Invalid value"

    def test_invalid_toml_while_searching(self, cwd: Path, capsys: pytest.CaptureFixture[str]) -> None:
        write(cwd / "pyproject.toml", "[tool.aigcheck\n")
        write(cwd / "m.py", SOURCE)
        status, out, err = codes(capsys, "m.py")
        assert (status, out) == (2, [])
        assert err.startswith("aigcheck: error: pyproject.toml:1:")
        assert "invalid TOML" in err

    def test_not_utf_8(self, tmp_path: Path) -> None:
        (tmp_path / "pyproject.toml").write_bytes(b"[tool.aigcheck]\n# caf\xe9\n")
        with pytest.raises(ConfigError, match=r"^pyproject.toml: invalid TOML: the file is not UTF-8"):
            load_config(tmp_path / "pyproject.toml")

    def test_errors_exit_2_through_the_cli(self, cwd: Path, capsys: pytest.CaptureFixture[str]) -> None:
        project(cwd, "select = 'AIG301'")
        status, out, err = codes(capsys, "pkg")
        assert (status, out) == (2, [])
        assert err.startswith("aigcheck: error: pyproject.toml: [tool.aigcheck] select must be a list")


def test_loaded_values(tmp_path: Path) -> None:
    path = write(
        tmp_path / "pyproject.toml",
        "[tool.aigcheck]\nselect = ['AIG3']\nextend-select = ['AIG105']\nignore = ['AIG303']\n"
        "exclude = ['gen', 'pkg/gen']\ndoc-strict = true\noutput-format = 'json'\nfail-on = 'error'\n"
        "[tool.aigcheck.per-file-ignores]\n'tests/*' = ['AIG30', 'private-api']\n",
    )
    config = load_config(path)
    assert (config.select, config.extend_select, config.ignore) == (("AIG3",), ("AIG105",), ("AIG303",))
    assert (config.doc_strict, config.output_format, config.fail_on) == (True, "json", Severity.ERROR)
    assert config.name_excludes() == ("gen",)
    assert config.anchored_excludes() == ("pkg/gen",)
    assert config.per_file_ignores[0].codes == {"AIG301", "AIG302", "AIG303", "AIG407"}
    assert config.ignored_codes(str(tmp_path / "tests" / "a.py")) == {"AIG301", "AIG302", "AIG303", "AIG407"}
    assert config.ignored_codes(str(tmp_path / "src" / "a.py")) == frozenset()


def test_defaults() -> None:
    config = Config()
    assert (config.select, config.extend_select, config.ignore, config.doc_strict) == (None, (), (), False)
    assert config.ignored_codes("a.py") == frozenset()
    assert not config.excludes("a.py")


@pytest.mark.parametrize(
    ("pattern", "path", "expected"),
    [
        pytest.param("tests/*", "tests/a/b.py", True, id="star-crosses-slashes"),
        pytest.param("**/conftest.py", "conftest.py", True, id="double-star-matches-no-directory"),
        pytest.param("**/conftest.py", "a/b/conftest.py", True, id="double-star-matches-directories"),
        pytest.param("a/**/x.py", "a/x.py", True, id="inner-double-star-none"),
        pytest.param("a/**/x.py", "a/b/c/x.py", True, id="inner-double-star-several"),
        pytest.param("__init__.py", "pkg/__init__.py", True, id="name-anywhere"),
        pytest.param("pkg/__init__.py", "src/pkg/__init__.py", False, id="path-is-anchored"),
        pytest.param("test_?.py", "test_a.py", True, id="question-mark"),
        pytest.param("[ab].py", "c.py", False, id="character-class"),
    ],
)
def test_matches(pattern: str, path: str, expected: bool) -> None:
    assert matches(pattern, path) is expected
