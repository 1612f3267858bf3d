"""An installed module is parsed without its classes' method bodies (checker/index/excerpts.py
``without_method_bodies``, checker/index/left_out.py): a class's kind comes from its header and
the names its body binds, and a body is parsed only when its method, or an attribute it may
set, is asked; the answers, and the findings, are those of the whole module."""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

import libcst as cst
import pytest
from projects import assert_marked, write

from checker.api import check_paths
from checker.facts.kinds.kind import Kind
from checker.index.excerpts import attributes_set, without_method_bodies
from checker.index.project import Project
from checker.reading.environment import ImportRoots, reading_imports
from checker.spec.contract import UserClass

SITE = "venv/lib/python3.11/site-packages"

BASE = """
    import torch
    import torch.nn as nn


    class Holder:
        def __init__(self):
            self.scale = torch.ones(3)
            self.count = 3

        def scaled(self, x):
            return x * self.scale


    class Base(nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("table", torch.zeros(2))

        def helper(self, x): return x + 1

        def registers(self, fn):
            return torch.compiler.allow_in_graph(fn)
"""


def _left_out(
    text: str, kept: frozenset[tuple[str, str]] = frozenset()
) -> tuple[str, str, dict[str, dict[str, set[str]]]]:
    """The text, the text without method bodies, and what each left-out body may set."""
    text = textwrap.dedent(text).lstrip("\n")
    made, left = without_method_bodies(text, ast.parse(text), {"allow_in_graph"}, kept)
    setting = {
        name: {method: set().union(*map(attributes_set, definitions)) for method, definitions in methods.items()}
        for name, methods in left.items()
    }
    return text, made, setting


def test_method_bodies_are_left_out_line_for_line_with_the_attributes_they_set() -> None:
    text, made, left = _left_out(BASE)
    assert made.count("\n") == text.count("\n")
    ast.parse(made)
    assert "torch.ones" not in made and "torch.zeros" not in made and "x * self.scale" not in made
    assert "def helper(self, x): return x + 1" in made  # (a body on the def line stays)
    assert "torch.compiler.allow_in_graph(fn)" in made  # (a body that spells a kept word stays)
    assert left == {
        "Holder": {"__init__": {"scale", "count"}, "scaled": set()},
        "Base": {"__init__": {"table"}},
    }


def test_the_bodies_asked_for_are_kept() -> None:
    _, made, left = _left_out(BASE, frozenset({("Holder", "__init__")}))
    assert "self.scale = torch.ones(3)" in made and "x * self.scale" not in made
    assert set(left["Holder"]) == {"scaled"}


def _site(tmp_path: Path) -> tuple[Path, Path]:
    write(
        tmp_path,
        {
            f"{SITE}/extpkg/__init__.py": "",
            f"{SITE}/extpkg/base.py": BASE,
            "proj/pyproject.toml": '[project]\nname = "proj"\n',
            "proj/app.py": "from extpkg.base import Base, Holder\n",
        },
    )
    return tmp_path / SITE, tmp_path / "proj" / "app.py"


def test_an_installed_class_is_read_without_its_bodies_until_one_is_asked(tmp_path: Path) -> None:
    site, app = _site(tmp_path)
    with reading_imports(ImportRoots(installed=(site,), checked=(app.parent.resolve(),))):
        index = Project()
        kind = index.kind(str(app), "extpkg.base.Holder")
        assert kind is not None and isinstance(kind.definition, cst.ClassDef)
        facts = index.owner_of(kind.definition)
        model = index.class_model(kind.definition)
        assert facts is not None and model is not None and model.category is UserClass.PLAIN
        assert "torch.ones" not in facts.module.code_for_node(kind.definition)
        assert model.attribute_kind("scale", facts.inference).kind is Kind.TENSOR
        assert model.attribute_kind("count", facts.inference).kind is Kind.IMMUTABLE
        assert model.attribute_kind("missing", facts.inference).kind is Kind.UNKNOWN
        found = model.method("scaled")
        assert found is not None
        owner = index.owner_of(found[0])
        assert owner is not None and "x * self.scale" in owner.module.code_for_node(found[0])


def test_a_body_asked_is_read_from_the_excerpt_the_class_was_read_from(tmp_path: Path) -> None:
    # Holder is asked, so base.py is read as the excerpt that reaches it; its method's body is
    # then parsed within that excerpt (Base, which nothing asked, stays out), not the whole module.
    site, app = _site(tmp_path)
    app.write_text("from extpkg.base import Holder\n")
    with reading_imports(ImportRoots(installed=(site,), checked=(app.parent.resolve(),))):
        index = Project()
        kind = index.kind(str(app), "extpkg.base.Holder")
        assert kind is not None and isinstance(kind.definition, cst.ClassDef)
        facts = index.owner_of(kind.definition)
        assert facts is not None and "class Base" not in facts.module.code
        model = index.class_model(kind.definition)
        assert model is not None
        found = model.method("scaled")
        assert found is not None
        owner = index.owner_of(found[0])
        assert owner is not None and "x * self.scale" in owner.module.code_for_node(found[0])
        assert "class Base" not in owner.module.code
        assert model.attribute_kind("scale", facts.inference).kind is Kind.TENSOR


#: A project of the installed package's classes: the findings are those of the whole module
#: (the exhaustive run parses it whole).
PROJECT = {
    f"{SITE}/extpkg/__init__.py": "",
    f"{SITE}/extpkg/base.py": BASE,
    "proj/pyproject.toml": '[project]\nname = "proj"\n',
    "proj/model.py": """
        import torch
        from extpkg.base import Base, Holder

        HOLDER = Holder()


        @torch.compiler.allow_in_graph
        def reads(x):
            return x * HOLDER.scale  # AIG301


        @torch.compiler.allow_in_graph
        def counts(x):
            return x * HOLDER.count


        @torch.compiler.allow_in_graph  # AIG402
        class Model(Base):
            def forward(self, x):
                return self.helper(x) * self.table
    """,
}


@pytest.mark.parametrize("exhaustive", [False, True], ids=["normal", "exhaustive"])
def test_findings_through_left_out_bodies_are_the_whole_modules(tmp_path: Path, exhaustive: bool) -> None:
    write(tmp_path, PROJECT)
    report = check_paths(
        [str(tmp_path / "proj")],
        jobs=1,
        isolated=True,
        python_environment=str(tmp_path / "venv"),
        exhaustive=exhaustive,
    )
    assert_marked(tmp_path / "proj", report.findings)
