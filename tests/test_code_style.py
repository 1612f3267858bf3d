"""The code base passes its own linter configuration ([tool.ruff] in pyproject.toml)."""

import ast
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def test_ruff_check_passes() -> None:
    ruff = shutil.which("ruff", path=str(Path(sys.executable).parent)) or shutil.which("ruff")
    if ruff is None:
        pytest.skip("ruff is not installed (it comes with the dev extra)")
    result = subprocess.run(
        [ruff, "check", "--output-format", "concise", "checker", "tests", "scripts", "runtime_guard"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr


# -- dependency direction (README.md, "Code layout") -------------------------------------

PACKAGES = ("checker", "runtime_guard", "benchmarks")
#: The folders of ``checker/``, upper layers first: a module never imports from a layer
#: above its own (README.md, "Code layout"). Within a layer imports go either way, as
#: long as they make no circle.
LAYERS = (
    "checker.__main__",
    "checker.command",
    "checker.api",
    "checker.passes",
    "checker.configuration",
    "checker.output",
    "checker.index",
    "checker.rules",
    "checker.facts",
    "checker.reading",
    "checker.spec",
)
#: The wings of ``checker/facts/``, likewise upper first: ``module`` gathers them all.
FACT_WINGS = (
    "checker.facts.module",
    "checker.facts.captures",
    "checker.facts.registrations",
    "checker.facts.kinds",
    "checker.facts.scopes",
)


def _modules() -> dict[str, Path]:
    found = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def _imported(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """Every project module ``name`` imports, wherever the import is written (inside
    functions and ``if TYPE_CHECKING:`` blocks too): an import circle is one however
    it is hidden. A benchmark script's bare ``import corpus_measure`` names its sibling."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    wanted: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            wanted.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                module = ".".join([*base, *([node.module] if node.module else [])])
            else:
                module = node.module or ""
            # ``from pkg import sub`` imports the submodule; ``from pkg import name``, the package.
            wanted.update(_known(f"{module}.{alias.name}", modules) or module for alias in node.names)
    found = set()
    for target in wanted:
        candidate = _known(target, modules)
        if not candidate and f"{package}.{target.partition('.')[0]}" in modules:  # a script's sibling
            candidate = _known(f"{package}.{target}", modules)
        if candidate and candidate != name:
            found.add(candidate)
    return found


def _known(dotted: str, modules: dict[str, Path]) -> str:
    """The project module ``dotted`` names, or the package it is in, or ''."""
    while dotted and dotted not in modules:
        dotted = dotted.rpartition(".")[0]
    return dotted


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    return {name: _imported(name, path, modules) for name, path in modules.items()}


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles: list[list[str]] = []
    for start in graph:
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    circles.append(sorted(component))
    return circles


def _layer(name: str, layers: tuple[str, ...] = LAYERS) -> int | None:
    for position, layer in enumerate(layers):
        if name == layer or name.startswith(layer + "."):
            return position
    return None


def _upward(layers: tuple[str, ...]) -> list[str]:
    return [
        f"{name} imports {target}"
        for name, targets in _graph().items()
        for target in sorted(targets)
        if (mine := _layer(name, layers)) is not None
        and (theirs := _layer(target, layers)) is not None
        and theirs < mine
    ]


def test_no_import_circle() -> None:
    assert _circles(_graph()) == []


def test_the_circle_finder_finds_a_circle() -> None:
    assert _circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_imports_go_one_way_through_the_layers() -> None:
    assert _upward(LAYERS) == []


def test_the_wings_of_the_facts_import_downward_only() -> None:
    assert _upward(FACT_WINGS) == []


def test_the_upward_finder_finds_an_upward_import(monkeypatch: pytest.MonkeyPatch) -> None:
    graph = {"checker.spec.catalog": {"checker.rules.base"}, "checker.rules.base": {"checker.spec.catalog"}}
    monkeypatch.setattr(sys.modules[__name__], "_graph", lambda: graph)
    assert _upward(LAYERS) == ["checker.spec.catalog imports checker.rules.base"]


def test_every_folder_of_the_checker_is_a_layer() -> None:
    """``ls checker`` is the plan: every folder and module (but the package itself) has
    its place in ``LAYERS``, and every wing of the facts in ``FACT_WINGS``."""
    checker = ROOT / "checker"
    entries = {
        f"checker.{path.stem}"
        for path in checker.iterdir()
        if (path.is_dir() and (path / "__init__.py").exists()) or (path.suffix == ".py" and path.stem != "__init__")
    }
    assert sorted(entries - set(LAYERS)) == []
    facts = checker / "facts"
    wings = {f"checker.facts.{path.stem}" for path in facts.iterdir() if path.is_dir() or path.stem == "module"}
    assert sorted(wings - {"checker.facts.__pycache__"}) == sorted(FACT_WINGS)


def test_the_runtime_guard_reads_the_contract_and_the_code_table_only() -> None:
    allowed = {"checker", "checker.spec.contract", "checker.spec.catalog", "checker.spec.findings"}
    wrong = [
        f"{name} imports {target}"
        for name, targets in _graph().items()
        if name.startswith("runtime_guard")
        for target in sorted(targets)
        if target.startswith("checker") and target not in allowed
    ]
    assert wrong == []


def test_nothing_below_the_command_line_sees_argparse() -> None:
    wrong = [
        path.relative_to(ROOT).as_posix()
        for path in sorted((ROOT / "checker").rglob("*.py"))
        if path.name not in ("cli.py", "docs.py")
        and any(
            isinstance(node, (ast.Import, ast.ImportFrom))
            and "argparse" in [alias.name for alias in node.names] + [getattr(node, "module", None)]
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        )
    ]
    assert wrong == []


def test_facts_build_no_sentences() -> None:
    """Facts carry data; words belong to rules. An f-string in checker/facts/ may join
    a dotted name or a spelling (``f"{prefix}.{attr}"``), never a phrase; exceptions
    raised for a checker bug may say what went wrong."""
    phrases = []
    for path in sorted((ROOT / "checker" / "facts").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        raised = {
            id(node) for statement in ast.walk(tree) if isinstance(statement, ast.Raise) for node in ast.walk(statement)
        }
        for node in ast.walk(tree):
            if isinstance(node, ast.JoinedStr) and id(node) not in raised:
                text = "".join(part.value for part in node.values if isinstance(part, ast.Constant))
                if " " in text:
                    phrases.append(f"{path.name}:{node.lineno}: {text!r}")
    assert phrases == []
