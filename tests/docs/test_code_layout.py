"""README "Code layout" is what ``ls checker`` shows, in the layers' order."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BLOCK = re.compile(r"<!-- code-layout:start -->\n```\n(.*?)```\n<!-- code-layout:end -->", re.S)


def _readme_tree() -> list[tuple[int, str]]:
    """(indent, entry) for each line of the README's layout block, after ``checker/``."""
    found = BLOCK.search((ROOT / "README.md").read_text(encoding="utf-8"))
    assert found is not None, "README.md has no code-layout block"
    lines = found.group(1).splitlines()
    assert lines[0] == "checker/"
    return [(len(line) - len(line.lstrip()), line.split()[0]) for line in lines[1:]]


def _listed(folder: Path) -> set[str]:
    """Packages (with a slash) and modules of ``folder``, as ``ls`` shows them; the package's
    own ``__init__.py`` and ``__main__.py`` are not part of the plan."""
    return {
        f"{path.name}/" if path.is_dir() else path.name
        for path in folder.iterdir()
        if (path.is_dir() and (path / "__init__.py").exists())
        or (path.suffix == ".py" and path.name not in ("__init__.py", "__main__.py"))
    }


def _layers() -> list[str]:
    """``LAYERS`` of tests/test_code_style.py, read without importing it."""
    tree = ast.parse((ROOT / "tests" / "test_code_style.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "LAYERS" for t in node.targets):
            return [ast.literal_eval(element) for element in node.value.elts]  # type: ignore[attr-defined]
    raise AssertionError("tests/test_code_style.py defines no LAYERS")


def test_the_top_level_entries_are_those_of_ls() -> None:
    top = {entry for indent, entry in _readme_tree() if indent == 2}
    assert top == _listed(ROOT / "checker")


def test_the_wings_of_the_facts_are_those_of_ls() -> None:
    tree = _readme_tree()
    start = tree.index((2, "facts/"))
    wings = []
    for indent, entry in tree[start + 1 :]:
        if indent <= 2:
            break
        wings.append(entry)
    assert set(wings) == {entry for entry in _listed(ROOT / "checker" / "facts") if entry.endswith("/")}


def test_the_entries_come_in_the_order_of_the_layers() -> None:
    shown = [entry.rstrip("/").removesuffix(".py") for indent, entry in _readme_tree() if indent == 2]
    layers = [name.removeprefix("checker.") for name in _layers() if name != "checker.__main__"]
    assert shown == layers
