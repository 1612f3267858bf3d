"""An installed module is read for the names a project asks of it (checker/index/excerpts.py,
Project.facts): the classes and defs nothing asked or kept spells are left out of its libcst
parse, its lines kept; a name of it is asked about as a registrar only where the text tier
would take it for one (its own registrar names); and the answers, and the findings, stay."""

from __future__ import annotations

import ast
import importlib.util
import textwrap
from pathlib import Path

import pytest
from projects import assert_marked, write

from checker.api import check_paths
from checker.index import excerpts
from checker.index.excerpts import excerpt
from checker.index.project import Project
from checker.reading.environment import ImportRoots, reading_imports

SITE = "venv/lib/python3.11/site-packages"

LAYERS = """
    import torch.nn as nn

    from .registry import maybe_allow_in_graph


    def _base():
        return nn.Module


    class Mixin:
        def helper(self):
            return 1


    class Block(nn.Module, Mixin):
        def forward(self, x):
            return x


    @maybe_allow_in_graph
    class Unrelated(nn.Module):
        def forward(self, x):
            return Other()(x)


    class Other(nn.Module):
        pass


    def dispatch(fn, *args):
        return fn(*args)
"""

REGISTRY = """
    import torch


    def maybe_allow_in_graph(cls):
        return torch.compiler.allow_in_graph(cls)
"""


def _excerpt(text: str, names: set[str]) -> str:
    text = textwrap.dedent(text).lstrip("\n")
    found = excerpt(text, ast.parse(text), names)
    assert found is not None
    return found


@pytest.fixture
def any_excerpt(monkeypatch: pytest.MonkeyPatch) -> None:
    """Excerpts made however much of the module they keep (these modules are small)."""
    monkeypatch.setattr(excerpts, "WHOLE_ENOUGH", 1.0)


def _top_names(text: str) -> list[str]:
    return [s.name for s in ast.parse(text).body if isinstance(s, (ast.ClassDef, ast.FunctionDef))]


@pytest.mark.usefixtures("any_excerpt")
def test_an_excerpt_keeps_what_the_asked_name_spells_and_blanks_the_rest_line_for_line() -> None:
    text = textwrap.dedent(LAYERS).lstrip("\n")
    found = _excerpt(LAYERS, {"Block"})
    assert _top_names(found) == ["Mixin", "Block"]
    assert found.count("\n") == text.count("\n")
    kept = [line for line in found.splitlines() if line]
    assert all(line in text.splitlines() for line in kept)
    assert found.splitlines().index("class Block(nn.Module, Mixin):") == text.splitlines().index(
        "class Block(nn.Module, Mixin):"
    )


@pytest.mark.usefixtures("any_excerpt")
def test_an_excerpt_follows_names_to_a_fixed_point_and_keeps_decorators_with_their_class() -> None:
    found = _excerpt(LAYERS, {"Unrelated"})
    assert _top_names(found) == ["Unrelated", "Other"]
    assert "@maybe_allow_in_graph" in found
    assert "@maybe_allow_in_graph" not in _excerpt(LAYERS, {"Block"})


@pytest.mark.usefixtures("any_excerpt")
def test_a_name_any_kept_statement_spells_is_kept() -> None:
    source = """
        class Hidden:
            pass


        class Shown:
            pass


        __all__ = ["Hidden"]
        Alias = Shown
    """
    assert _top_names(_excerpt(source, set())) == ["Hidden", "Shown"]
    assert _top_names(_excerpt("class A:\n    pass\n", set())) == []


def test_no_excerpt_is_made_where_it_would_keep_most_of_the_module() -> None:
    text = textwrap.dedent(LAYERS).lstrip("\n")
    assert excerpt(text, ast.parse(text), {"Unrelated", "Block", "dispatch"}) is None
    assert excerpt("x = 1\n", ast.parse("x = 1\n"), {"x"}) is None  # (nothing to leave out)


def _site(tmp_path: Path) -> tuple[Path, Path]:
    write(
        tmp_path,
        {
            f"{SITE}/extpkg/__init__.py": "",
            f"{SITE}/extpkg/layers.py": LAYERS,
            f"{SITE}/extpkg/registry.py": REGISTRY,
            "proj/pyproject.toml": '[project]\nname = "proj"\n',
            "proj/app.py": "from extpkg.layers import Block, dispatch\n",
        },
    )
    return tmp_path / SITE, tmp_path / "proj" / "app.py"


def test_an_installed_module_is_parsed_for_the_names_asked_and_widened_for_another(tmp_path: Path) -> None:
    site, app = _site(tmp_path)
    with reading_imports(ImportRoots(installed=(site,), checked=(app.parent.resolve(),))):
        index = Project()
        found = index.lookup(str(app), "extpkg.layers.Block", require_api=False)
        assert found is not None
        facts, name = found
        assert name == "Block"
        assert {"Block", "Mixin", "dispatch"} <= set(facts.tree.module.bindings)
        assert "Unrelated" not in facts.tree.module.bindings
        kind = index.kind(str(app), "extpkg.layers.Block")
        assert kind is not None and kind.definition is not None
        assert index.class_model(kind.definition).is_module  # type: ignore[arg-type, union-attr]
        widened = index.kind(str(app), "extpkg.layers.Unrelated")
        assert widened is not None and widened.known


def test_a_forwarding_def_of_an_installed_module_that_reaches_no_registrar_is_not_parsed_as_one(
    tmp_path: Path,
) -> None:
    site, app = _site(tmp_path)
    with reading_imports(ImportRoots(installed=(site,), checked=(app.parent.resolve(),))):
        index = Project()
        assert index.lookup(str(app), "extpkg.layers.dispatch") is None
        assert index.registrar(str(app), "extpkg.registry.maybe_allow_in_graph") is not None


#: A project of the installed package's classes: the findings are those of the whole module.
PROJECT = {
    f"{SITE}/extpkg/__init__.py": "",
    f"{SITE}/extpkg/layers.py": LAYERS,
    f"{SITE}/extpkg/registry.py": REGISTRY,
    "proj/pyproject.toml": '[project]\nname = "proj"\n',
    "proj/model.py": """
        import torch
        from extpkg.layers import Block, dispatch
        from extpkg.registry import maybe_allow_in_graph

        SCALE = torch.ones(3)


        @maybe_allow_in_graph  # AIG402
        class Model(Block):
            def forward(self, x):
                return dispatch(torch.relu, x)


        @torch.compiler.allow_in_graph
        def scaled(x):
            return x * SCALE  # AIG301
    """,
}


@pytest.mark.parametrize("exhaustive", [False, True], ids=["normal", "exhaustive"])
def test_findings_through_an_excerpt_are_the_whole_modules(tmp_path: Path, exhaustive: bool) -> None:
    write(tmp_path, PROJECT)
    report = check_paths(
        [str(tmp_path / "proj")],
        jobs=1,
        isolated=True,
        python_environment=str(tmp_path / "venv"),
        exhaustive=exhaustive,
    )
    assert_marked(tmp_path / "proj", report.findings)


def _benchmark() -> object:
    path = Path(__file__).resolve().parents[2] / "benchmarks" / "installed_packages.py"
    spec = importlib.util.spec_from_file_location("installed_packages_benchmark", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_benchmark_refuses_a_folder_aigcheck_would_not_read(tmp_path: Path) -> None:
    benchmark = _benchmark()
    (tmp_path / "target" / "diffusers" / "models" / "transformers").mkdir(parents=True)
    with pytest.raises(SystemExit, match="not an environment"):
        benchmark.diffusers_site(tmp_path / "target")  # type: ignore[attr-defined]
    environment = tmp_path / "env"
    (environment / "lib" / "python3.11" / "site-packages").mkdir(parents=True)
    with pytest.raises(SystemExit, match="no diffusers/models/transformers"):
        benchmark.diffusers_site(environment)  # type: ignore[attr-defined]
    site = environment / "lib" / "python3.11" / "site-packages"
    (site / "diffusers" / "models" / "transformers").mkdir(parents=True)
    assert benchmark.diffusers_site(environment) == site  # type: ignore[attr-defined]
