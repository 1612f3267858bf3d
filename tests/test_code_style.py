"""The code base passes its own linter configuration ([tool.ruff] in pyproject.toml)."""

import ast
import shutil
import subprocess
import sys
from pathlib import Path
from types import EllipsisType

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
    allowed |= {"checker.spec.messages"}  # the same message types as the rules (issue 21)
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


# -- what tests and benchmarks import (issue 21) -------------------------------------------

#: The public face of the project: what a user, the language server to come, and a test of
#: behaviour may import. A name set says which names a module lends; ``...`` lends its
#: ``__all__`` (or, without one, its names without a leading underscore). ``checker.command.cli``
#: lends ``main`` alone: it is the command line's front door, what the ``aigcheck`` script runs.
#: ``checker.facts.module`` lends ``ModuleFacts``, what a rule's ``check`` is handed (the rule
#: API of ``checker.rules.base``). ``runtime_guard.backend`` is the Dynamo backend README.md
#: documents (``from runtime_guard.backend import reports, last_report``).
PUBLIC: dict[str, frozenset[str] | EllipsisType] = {
    "checker": frozenset({"__version__"}),
    "checker.api": ...,
    "checker.command.cli": frozenset({"main"}),
    "checker.rules": ...,
    "checker.rules.base": ...,
    "checker.facts.module": frozenset({"ModuleFacts"}),
    "checker.spec.catalog": ...,
    "checker.spec.contract": ...,
    "checker.spec.findings": ...,
    "checker.spec.links": ...,
    "checker.spec.markers": ...,
    "checker.spec.messages": ...,
    "checker.spec.torch_api": ...,
    "runtime_guard": ...,
    "runtime_guard.backend": ...,
}
#: Tests that mirror modules (the conventions: "tests mirror modules") and unit-test
#: them through their own names: each test file, and the modules (or folders: all their
#: modules) it unit-tests. Every other test goes through ``PUBLIC``: a test of behaviour
#: (source in, findings out; a run of the command line) then survives any move below the
#: front door. A table rather than test folders that mirror the package: half of these are
#: reliability tests, grouped by the hazard they guard against, not by module.
MIRRORS: dict[str, tuple[str, ...]] = {
    "benchmarks/runtime_guard_overhead.py": ("runtime_guard.registry",),  # spends TRACED_EAGER_CALLS first
    "tests/checker/facts/test_captures.py": ("checker.facts.captures",),
    "tests/checker/test_baseline.py": ("checker.command.baseline",),
    # The command line's own tests: its run, its report, and faults injected below the front door.
    "tests/checker/test_cli.py": ("checker.command.run", "checker.output", "checker.passes"),
    "tests/checker/test_config.py": ("checker.configuration.config",),
    # The links a file's check finds (LinkedReport.links): the front door returns reports only.
    "tests/checker/test_cross_module_captures.py": ("checker.passes.engine",),
    "tests/checker/test_discovery.py": ("checker.reading.discovery",),
    "tests/checker/test_docs.py": ("checker.output.docs",),
    "tests/checker/test_finding_order.py": ("checker.output.reporters",),
    "tests/checker/test_forker.py": ("checker.passes.forker", "checker.passes.pool"),
    "tests/checker/test_github.py": ("checker.output.reporters",),
    "tests/checker/test_globs.py": ("checker.reading.globs",),
    # What the index parses of an installed module, asked as a run asks it (within its import roots).
    "tests/checker/test_installed_excerpts.py": ("checker.index", "checker.reading.environment"),
    "tests/checker/test_installed_method_bodies.py": (
        "checker.index",
        "checker.reading.environment",
        "checker.facts.kinds",
    ),
    "tests/checker/test_mentions.py": ("checker.reading.mentions", "checker.reading.source"),
    "tests/checker/test_forwarding.py": (
        "checker.index.pipeline",
        "checker.reading.exhaustive",
        "checker.reading.forwarding",
    ),
    "tests/checker/test_noqa.py": ("checker.output.noqa",),
    "tests/checker/test_pool.py": ("checker.passes.pool",),
    # CPython's parses of a module the index and the engine share, counted where each is made.
    "tests/checker/test_python_trees.py": ("checker.index", "checker.passes.engine", "checker.reading.source"),
    "tests/checker/test_positions.py": ("checker.reading.positions",),
    "tests/checker/test_prefilter_imports.py": ("checker.reading.source",),
    # One index shared between files, as a run shares it: through the engine's check_path.
    "tests/checker/test_project.py": ("checker.index.project", "checker.passes.engine"),
    # The path predicates of a run, asked within its import roots as a run asks them.
    "tests/checker/test_real_paths.py": ("checker.reading.environment", "checker.reading.packages"),
    "tests/checker/test_registered_elsewhere.py": ("checker.passes",),
    "tests/checker/test_report.py": ("checker.output.report",),
    "tests/checker/test_reporters.py": ("checker.output.reporters",),
    "tests/checker/test_sarif.py": ("checker.output.reporters", "checker.output.docs"),
    "tests/checker/test_schedule.py": ("checker.passes", "checker.index.reverse_scan"),
    "tests/checker/test_selection.py": ("checker.configuration.selection",),
    "tests/checker/test_settings.py": ("checker.configuration", "checker.reading.discovery"),
    # The text tier's registrations, held to a search of the whole text by its own patterns.
    "tests/checker/test_text_registrations.py": ("checker.index.reverse_scan",),
    # When the scheduler tells of an urgent outcome, with workers whose outcomes the test hands out.
    "tests/checker/test_urgent_outcomes.py": ("checker.passes",),
    # One table of cases per predicate both tiers ask, run through each tier's own adapter.
    "tests/checker/test_shared_predicates.py": (
        "checker.facts.captures.changes",
        "checker.facts.registrations.sites",
        "checker.facts.scopes",
        "checker.index",
        "checker.reading",
    ),
    # A save while --fix runs: the session the run makes is one that saves meanwhile.
    "tests/reliability/test_atomic_writes.py": ("checker.output.atomic", "checker.passes"),
    "tests/reliability/test_cache_folder_links.py": ("checker.passes.cache", "checker.passes.engine"),
    "tests/reliability/test_cache_integrity.py": ("checker.passes.cache",),
    "tests/reliability/test_contained_files.py": ("checker.passes", "checker.reading.libcst_text"),
    "tests/reliability/test_diff_headers.py": ("checker.output.diffs",),
    "tests/reliability/test_interrupts.py": ("checker.command.interrupts",),
    "tests/reliability/test_large_literals.py": ("checker.reading.libcst_text",),
    "tests/reliability/test_libcst_corners.py": ("checker.reading.libcst_text",),
    # Counts the searches and the collections of every stage, from the text scans to the workers.
    "tests/reliability/test_linear_growth.py": (
        "checker.facts.scopes.tree",
        "checker.index",
        "checker.passes",
        "checker.reading",
    ),
    "tests/reliability/test_many_excludes.py": ("checker.configuration.config", "checker.reading"),
    "tests/reliability/test_special_files.py": ("checker.reading.source",),
    "tests/reliability/test_symlinked_folders.py": ("checker.reading.mounts", "checker.reading.packages"),
    "tests/reliability/test_terminal_escapes.py": ("checker.output.reporters.base",),
    "tests/reliability/test_vanishing_files.py": ("checker.passes.cache",),
    "tests/runtime_guard/conftest.py": ("runtime_guard.late",),  # each test starts from a late-guard baseline
    "tests/runtime_guard/test_backend_differential.py": ("runtime_guard.reports", "runtime_guard.selftest"),
    "tests/runtime_guard/test_guard_no_false_reports.py": ("runtime_guard.reachable",),
    "tests/runtime_guard/test_guard_registry.py": ("runtime_guard.api",),
    "tests/runtime_guard/test_guard_values.py": ("runtime_guard.values",),
    "tests/runtime_guard/test_late_guard.py": ("runtime_guard.late",),
}
#: Test files other helpers are editing now (issue 21); each leaves this set once re-pointed.
PENDING: frozenset[str] = frozenset()


def _lent(module: str, modules: dict[str, Path]) -> frozenset[str]:
    """The names ``module`` (one of ``PUBLIC``) lends to tests."""
    names = PUBLIC[module]
    if isinstance(names, frozenset):
        return names
    tree = ast.parse(modules[module].read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "__all__" for t in node.targets):
            return frozenset(ast.literal_eval(node.value))
    bound = {name for node in tree.body for name in _bound(node)}
    return frozenset(name for name in bound if not name.startswith("_"))


def _bound(node: ast.stmt) -> list[str]:
    """The module-level names one top-level statement binds."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [node.name]
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return [(alias.asname or alias.name).partition(".")[0] for alias in node.names]
    if isinstance(node, (ast.Assign, ast.AnnAssign)):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        return [name.id for target in targets for name in ast.walk(target) if isinstance(name, ast.Name)]
    return []


def _project_imports(tree: ast.Module, modules: dict[str, Path]) -> list[tuple[str, str | None, str | None]]:
    """Each import of a project module in ``tree``, wherever written: (module, name, bound), where
    ``name`` is the name taken from the module (None for the module itself) and ``bound`` the
    name a module import binds in the file (None when it binds the top package only)."""
    found: list[tuple[str, str | None, str | None]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if _known(alias.name, modules):
                    # ``import checker.x`` binds ``checker``, whose attributes it then reads.
                    bound = alias.asname or (None if "." in alias.name else alias.name)
                    found.append((alias.name, None, bound))
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module and _known(node.module, modules):
            for alias in node.names:
                submodule = f"{node.module}.{alias.name}"
                if submodule in modules and alias.name not in _lent_or_empty(node.module, modules):
                    found.append((submodule, None, alias.asname or alias.name))
                else:
                    found.append((node.module, alias.name, None))
    return found


def _lent_or_empty(module: str, modules: dict[str, Path]) -> frozenset[str]:
    return _lent(module, modules) if module in PUBLIC else frozenset()


def _internal_imports(path: Path, modules: dict[str, Path]) -> list[str]:
    """What ``path`` imports beyond ``PUBLIC``: ``module`` or ``module:name``; a module lending only
    some names is followed through the attributes read on it (``cli.main``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    wrong = []
    for module, name, bound in _project_imports(tree, modules):
        if module not in PUBLIC:
            wrong.append(module if name is None else f"{module}:{name}")
        elif name is not None and not _dunder(name) and name not in _lent(module, modules):
            wrong.append(f"{module}:{name}")
        elif name is None and bound is not None:
            read = {
                node.attr
                for node in ast.walk(tree)
                if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == bound
            }
            for attr in sorted(read - _lent(module, modules)):
                if not _dunder(attr):  # ``rg.values`` reads the submodule ``runtime_guard.values``
                    wrong.append(f"{module}.{attr}" if f"{module}.{attr}" in modules else f"{module}:{attr}")
    return sorted(set(wrong))


def _within(module: str, mirrored: str) -> bool:
    """Whether ``module`` is ``mirrored`` or one of its modules (a folder of the package)."""
    return module == mirrored or module.startswith(mirrored + ".")


def _dunder(name: str) -> bool:
    return name.startswith("__") and name.endswith("__")


def _test_files() -> list[Path]:
    return sorted(path for folder in ("tests", "benchmarks") for path in (ROOT / folder).rglob("*.py"))


def _beyond_the_front_door() -> list[str]:
    modules = _modules()
    wrong = []
    for path in _test_files():
        relative = path.relative_to(ROOT).as_posix()
        if relative in PENDING:
            continue
        mirrored = MIRRORS.get(relative, ())
        for imported in _internal_imports(path, modules):
            if not any(_within(imported.partition(":")[0], module) for module in mirrored):
                wrong.append(f"{relative} imports {imported}")
    return wrong


def test_tests_and_benchmarks_import_only_public_names() -> None:
    """A test of behaviour goes through the front door (``checker.api``, the command line), the
    rules, the spec types and the runtime guard's public names; a test that mirrors a module
    may import that module too (``MIRRORS``)."""
    assert _beyond_the_front_door() == []


def test_the_public_import_finder_finds_internal_imports(tmp_path: Path) -> None:
    source = (
        "import runtime_guard as rg\n"
        "from checker.api import check_source\n"
        "from checker.command import cli\n"
        "from checker.rules import _wording, ALL_RULES\n"
        "def f():\n"
        "    from checker.passes.engine import check_path\n"
        "    import checker.reading.globs\n"
        "    return cli.main([]), cli.check, rg.registry, rg.values\n"
    )
    (tmp_path / "test_x.py").write_text(source, encoding="utf-8")
    assert _internal_imports(tmp_path / "test_x.py", _modules()) == [
        "checker.command.cli:check",
        "checker.passes.engine:check_path",
        "checker.reading.globs",
        "checker.rules._wording",
        "runtime_guard.values",
    ]


def test_every_mirror_is_a_test_of_modules_it_imports() -> None:
    """``MIRRORS`` stays true: each entry names an existing test file and modules that file imports."""
    modules = _modules()
    stale = []
    for relative, mirrored in MIRRORS.items():
        path = ROOT / relative
        imported = {entry.partition(":")[0] for entry in _internal_imports(path, modules)} if path.exists() else set()
        stale.extend(f"{relative}: {module}" for module in mirrored if not any(_within(i, module) for i in imported))
    assert stale == []


def test_every_public_name_is_there() -> None:
    """``PUBLIC`` names modules of the project and names they bind, so that it cannot lend what is gone."""
    modules = _modules()
    missing = [module for module in PUBLIC if module not in modules]
    missing += [
        f"{module}:{name}"
        for module, names in PUBLIC.items()
        if module in modules and isinstance(names, frozenset)
        for name in sorted(names)
        if name
        not in {bound for node in ast.parse(modules[module].read_text(encoding="utf-8")).body for bound in _bound(node)}
    ]
    assert missing == []
