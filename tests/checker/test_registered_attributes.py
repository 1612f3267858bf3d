"""Classes and instances registered as an attribute of another project module.

``torch.compiler.allow_in_graph(models.Block)`` registers what models.py binds ``Block``
to, exactly as ``from .models import Block; allow_in_graph(Block)`` does: an nn.Module
subclass is AIG402, a tensor subclass without the flatten protocol AIG203, a dataclass or
a class with ``__call__`` AIG201, a callable instance AIG403, each reported at the
registering line. Under every import spelling, in the call, rebinding and list forms,
with the project, the registering file alone, or every file parsed (``exhaustive``) checked.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from projects import assert_marked, check, run, write

from checker.api import check_paths
from checker.spec.markers import expected

ROOT = Path(__file__).resolve().parents[2]

MODELS = """
import dataclasses

import torch
from torch import nn


class Block(nn.Module):
    def forward(self, x):
        return x


class Sub(torch.Tensor):
    pass


@dataclasses.dataclass
class State:
    scale: torch.Tensor


class Op:
    def __call__(self, x):
        return x


op = Op()
"""

#: An import of models.py, and how a registration there names its attributes.
SPELLINGS = {
    "relative-module": ("from . import models", "models."),
    "relative-module-alias": ("from . import models as m", "m."),
    "package-module": ("import pkg.models", "pkg.models."),
    "package-module-alias": ("import pkg.models as y", "y."),
    "module-from-package": ("from pkg import models", "models."),
    "imported-names": ("from .models import Block, Op, State, Sub, op", ""),  # what the others must match
}

#: Registrations of models.py's classes and instance, ``{m}`` the spelling's prefix.
FORMS = {
    "call": """
        torch.compiler.allow_in_graph({m}Block)  # AIG402
        torch.compiler.allow_in_graph({m}Sub)  # AIG203
        torch.compiler.allow_in_graph({m}State)  # AIG201
        torch.compiler.allow_in_graph({m}op)  # AIG403
        torch.compiler.allow_in_graph({m}Op)  # AIG201
        """,
    "rebinding-the-attribute": """
        {m}Block = torch.compiler.allow_in_graph({m}Block)  # AIG402
        {m}Sub = torch.compiler.allow_in_graph({m}Sub)  # AIG203
        {m}State = torch.compiler.allow_in_graph({m}State)  # AIG201
        {m}op = torch.compiler.allow_in_graph({m}op)  # AIG403
        """,
    "rebinding-a-name": """
        Block = torch.compiler.allow_in_graph({m}Block)  # AIG402
        Sub = torch.compiler.allow_in_graph({m}Sub)  # AIG203
        State = torch.compiler.allow_in_graph({m}State)  # AIG201
        op = torch.compiler.allow_in_graph({m}op)  # AIG403
        """,
    "list-and-tuple": """
        torch.compiler.allow_in_graph([{m}Block, {m}Sub, {m}Op])  # AIG402 AIG203 AIG201
        torch.compiler.allow_in_graph(({m}State, {m}op))  # AIG201 AIG403
        """,
    "built-collections": """
        OPS = ({m}Block, {m}Sub)
        torch.compiler.allow_in_graph(OPS)  # AIG402 AIG203
        torch.compiler.allow_in_graph(list(OPS))  # AIG402 AIG203
        torch.compiler.allow_in_graph(list({{"op": {m}op}}.values()))  # AIG403
        """,
    "in-a-function": """
        def setup():
            torch.compiler.allow_in_graph({m}Block)  # AIG402
            torch.compiler.allow_in_graph([{m}Sub, {m}op])  # AIG203 AIG403
        """,
}


def _register(imported: str, form: str, prefix: str) -> str:
    return f"import torch\n{imported}\n\n" + re.sub(r"^ {8}", "", form.format(m=prefix).lstrip("\n"), flags=re.M)


@pytest.fixture(params=[(s, f) for f in FORMS for s in SPELLINGS], ids=lambda pair: f"{pair[1]}-{pair[0]}")
def project(request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    spelling, form = request.param
    imported, prefix = SPELLINGS[spelling]
    write(tmp_path, {"pkg/__init__.py": "", "pkg/models.py": MODELS})
    (tmp_path / "pkg" / "register.py").write_text(_register(imported, FORMS[form], prefix), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _found(root: Path, *, exhaustive: bool) -> list[tuple[str, int, int, str, str]]:
    report = check_paths([root / "pkg"], isolated=True, jobs=1, contained=False, exhaustive=exhaustive)
    return [
        (Path(f.path).resolve().relative_to(root.resolve()).as_posix(), f.line, f.column, f.code, f.message)
        for f in report.findings
    ]


def test_each_registration_is_judged_as_the_imported_name_is(project: Path) -> None:
    assert_marked(project, run("--isolated", "-q", "--no-cache", "pkg")[1])


def test_checking_only_the_registering_file(project: Path) -> None:
    check(project, "pkg/register.py")


def test_the_cheap_tier_agrees(project: Path) -> None:
    normal = _found(project, exhaustive=False)
    assert normal, "the registrations give findings"
    assert normal == _found(project, exhaustive=True)


def test_a_rebound_module_name_is_not_followed(tmp_path: Path) -> None:
    """``models`` rebound to what a call returns may be anything: nothing is inferred."""
    register = (
        "import torch\nfrom . import models\n\nmodels = wrap(models)\ntorch.compiler.allow_in_graph(models.Block)\n"
    )
    write(tmp_path, {"pkg/__init__.py": "", "pkg/models.py": MODELS, "pkg/register.py": register})
    check(tmp_path, "pkg/register.py")


# -- the fixtures' classes, registered from another module -------------------------------

#: ``torch.compiler.allow_in_graph(Name)`` at the top level of a module.
_BY_NAME = re.compile(r"^torch\.compiler\.allow_in_graph\((\w+)\)", re.M)
#: ``@torch.compiler.allow_in_graph`` right above a top-level class.
_DECORATED = re.compile(r"^@torch\.compiler\.allow_in_graph\b[^\n]*\nclass (\w+)", re.M)


def _registered_classes() -> list[tuple[Path, str, int]]:
    """Each fixture class registered in its own module, by name or as a decorator: the
    module, the class, the registering line."""
    found = []
    for path in sorted((ROOT / "fixtures").rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        for match in [*_BY_NAME.finditer(text), *_DECORATED.finditer(text)]:
            name = match.group(1)
            if re.search(rf"^class {name}\b", text, re.M):
                found.append((path, name, text.count("\n", 0, match.start()) + 1))
    return found


CLASSES = _registered_classes()


def test_the_fixtures_register_classes_by_name() -> None:
    names = {name for _, name, _ in CLASSES}
    assert names >= {"QuantState", "ScaledTensor", "LeakyClamp", "Int4Tensor", "FusedLinearReLU"}


@pytest.mark.parametrize("exhaustive", [False, True], ids=["normal", "exhaustive"])
@pytest.mark.parametrize(
    ("fixture", "name", "line"),
    CLASSES,
    ids=[f"{path.parent.name}/{path.stem}.{name}" for path, name, _ in CLASSES],
)
def test_a_fixture_class_registered_through_its_module(
    tmp_path: Path, fixture: Path, name: str, line: int, exhaustive: bool
) -> None:
    """The registration, written at the same line of another module through a module
    attribute, gives the codes the fixture marks on its own line."""
    package = tmp_path / "pkg"
    if (fixture.parent / "__init__.py").is_file():
        shutil.copytree(fixture.parent, package)
    else:
        package.mkdir()
        (package / "__init__.py").write_text("", encoding="utf-8")
        shutil.copy(fixture, package / fixture.name)
    lines = ["import torch", f"from . import {fixture.stem} as subject", *[""] * (line - 3)]
    lines.append(f"torch.compiler.allow_in_graph(subject.{name})")
    (package / "register_elsewhere.py").write_text("\n".join(lines) + "\n", encoding="utf-8")
    marked = expected(fixture.read_text(encoding="utf-8"))
    want = sorted(code for (at, code), count in marked.items() if at == line for _ in range(count))
    found = _found(tmp_path, exhaustive=exhaustive)
    got = [(at, code) for path, at, _, code, _ in found if path == "pkg/register_elsewhere.py"]
    assert got == [(line, code) for code in want]
