"""Where an import leads on disk, by path alone: nothing is imported or run.

Relative imports resolve from the importing file's folder, absolute ones only inside
the importing file's own top-level package, regular or namespace (so a project's
``from pkg.utils import x`` resolves, while ``numpy`` or ``torch`` never lead outside it).
"""

from __future__ import annotations

from pathlib import Path


def candidates(importer: Path, qualified: str) -> list[tuple[Path, str]]:
    """(module file, attribute) pairs ``qualified`` may name, the longest module first."""
    dots = len(qualified) - len(qualified.lstrip("."))
    parts = qualified[dots:].split(".") if qualified[dots:] else []
    if dots:
        base = importer.parent
        for _ in range(dots - 1):
            base = base.parent
    else:
        base = _package_root(importer, parts[0]) if parts else None
        if base is None:
            return []
    found = []
    for cut in range(len(parts), -1, -1):
        module, attribute = parts[:cut], ".".join(parts[cut:])
        if not attribute or "." in attribute:
            continue
        folder = base.joinpath(*module)
        for candidate in (folder.with_suffix(".py") if module else None, folder / "__init__.py"):
            if candidate is not None and candidate.is_file() and candidate.resolve() != importer.resolve():
                found.append((candidate, attribute))
    return found


def module_name(path: str) -> str | None:
    """The dotted name a file is imported as (``pkg/sub/mod.py`` -> ``pkg.sub.mod``), from
    its ``__init__.py`` chain; None outside a package."""
    file = Path(path).resolve()
    package = _top_package(file)
    if package is None:
        return None
    parts = file.relative_to(package.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _package_root(importer: Path, name: str) -> Path | None:
    """The folder holding package ``name`` when ``importer`` is inside it: its regular
    package's, or for a namespace package (no ``__init__.py``), the parent of the
    nearest enclosing folder called ``name``. Other packages are never looked into."""
    package = _top_package(importer)
    if package is not None and package.name == name:
        return package.parent
    for folder in importer.resolve().parents:
        if folder.name == name:
            return folder.parent
    return None


def _top_package(path: Path) -> Path | None:
    """The outermost folder of the regular package that holds ``path`` (``__init__.py`` chain)."""
    folder = path.resolve().parent
    top = None
    while (folder / "__init__.py").is_file():
        top = folder
        if folder.parent == folder:
            break
        folder = folder.parent
    return top
