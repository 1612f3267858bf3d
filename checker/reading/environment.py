"""Where absolute imports may lead beyond the importing file's own package: the checked
project's import roots and an installed environment's ``site-packages``, by path alone.

Nothing of the environment is imported or run, its interpreter included: its
``site-packages`` folders are found by name (``lib/python3*/site-packages``,
``Lib/site-packages``), as type checkers find them, and only the modules an import names
are read there later (:mod:`checker.reading.packages`). The folders a run uses, and the
paths it checks (for the evidence of files beside a package, :mod:`checker.index.change_scan`),
are a setting of the process, as the exhaustive switch is: set around a run by
:func:`reading_imports`, inherited by the workers forked within it.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path

#: Folder names that make a folder an installed environment's (its files resolve imports
#: only inside their own package, as before: no hop from one installed package to another).
INSTALLED_FOLDERS = frozenset({"site-packages", "dist-packages"})
#: The folders at a project's root that name it an environment, in order (as ``uv``, ``poetry``, ``pdm`` make them).
LOCAL_ENVIRONMENTS = (".venv", "venv")
#: Top-level names never resolved in the environment: torch is modelled by the checker's
#: own tables (``checker.spec.torch_api``); reading its thousands of modules would only cost.
NEVER_INSTALLED = frozenset({"torch", "functorch"})
#: ``.pth`` files read per ``site-packages`` folder (editable installs list their source
#: folders there), and the bytes read of each; lines that run code (``import ...``) are skipped.
MAX_PTH_FILES = 64
MAX_PTH_BYTES = 64 * 1024
#: How many folders up from a script the checked project's root (``pyproject.toml``,
#: ``setup.py``, ``setup.cfg`` or ``.git`` there) is looked for.
MAX_PROJECT_DEPTH = 8
PROJECT_MARKERS = ("pyproject.toml", "setup.py", "setup.cfg", ".git")


@dataclass(frozen=True)
class ImportRoots:
    """What a run lets absolute imports reach: the environment's import folders (in
    order: ``site-packages``, then the source folders its ``.pth`` files list), and the
    paths the run checks (real paths). ``enabled``: installed packages are resolved at
    all (off: neither the environment nor the table of well-known registrars is used)."""

    installed: tuple[Path, ...] = ()
    checked: tuple[Path, ...] = ()
    enabled: bool = True
    #: What the run found where, kept for the run only (a run's index keeps its answers as long).
    found: dict[tuple[Path, str], list[tuple[Path, bool]]] | None = field(default=None, compare=False, repr=False)
    #: Paths resolved in the run (a resolve costs a system call per folder), and the top
    #: packages of files: kept for the run only, as ``found``.
    real: dict[Path, Path] | None = field(default=None, compare=False, repr=False)
    tops: dict[Path, Path | None] | None = field(default=None, compare=False, repr=False)


_roots = ImportRoots()


def import_roots() -> ImportRoots:
    """The import roots of the run in progress (none outside one)."""
    return _roots


@contextmanager
def reading_imports(roots: ImportRoots) -> Iterator[None]:
    """Within the block, imports resolve through ``roots``; as before after it."""
    global _roots
    before, _roots = _roots, replace(roots, found={}, real={}, tops={})
    try:
        yield
    finally:
        _roots = before


def find_environment(setting: Path | None, root: Path) -> Path | None:
    """The environment a run reads installed packages from: ``setting`` (the configuration's
    ``python-environment``, a folder), else ``$VIRTUAL_ENV``, else ``.venv`` or ``venv`` at
    ``root`` (the project's root); None when there is none."""
    if setting is not None:
        return setting
    active = os.environ.get("VIRTUAL_ENV")
    if active:
        return Path(active)
    for name in LOCAL_ENVIRONMENTS:
        if (root / name / "pyvenv.cfg").is_file() or (root / name / "lib").is_dir():
            return root / name
    return None


def installed_folders(environment: Path) -> tuple[Path, ...]:
    """The import folders of ``environment``: its ``site-packages`` (found by name; its
    interpreter is never run), then the source folders its ``.pth`` files list (editable
    installs). A ``site-packages`` folder itself is taken as it is."""
    if environment.name in INSTALLED_FOLDERS:
        found = [environment] if environment.is_dir() else []
    else:
        found = sorted(path for path in environment.glob("lib/python3*/site-packages") if path.is_dir())
        found += [path for path in (environment / "Lib" / "site-packages",) if path.is_dir()]
    listed: list[Path] = []
    for folder in found:
        listed += _pth_folders(folder)
    return tuple(dict.fromkeys([*found, *(path for path in listed if path not in found)]))


def _pth_folders(site: Path) -> list[Path]:
    """The folders the ``.pth`` files of ``site`` list, lines that run code left out."""
    try:
        names = sorted(entry.name for entry in os.scandir(site) if entry.name.endswith(".pth"))
    except OSError:
        return []
    folders = []
    for name in names[:MAX_PTH_FILES]:
        try:
            with open(site / name, "rb") as stream:
                text = stream.read(MAX_PTH_BYTES).decode("utf-8", "replace")
        except OSError:
            continue
        for line in text.splitlines():
            line = line.strip()
            if not line or line.startswith(("#", "import ", "import\t")):
                continue
            folder = Path(line) if os.path.isabs(line) else site / line
            if folder.is_dir():
                folders.append(folder)
    return folders


def is_installed(path: Path | str) -> bool:
    """Whether ``path`` lies in an installed environment's ``site-packages``. (A source
    folder a ``.pth`` file lists is someone's own project: its files resolve as a project's.)
    A string is split as it is (the text tier asks of every file of a tree: no ``Path`` made)."""
    if isinstance(path, Path):
        return not INSTALLED_FOLDERS.isdisjoint(path.parts)
    return not INSTALLED_FOLDERS.isdisjoint((path.replace(os.altsep, os.sep) if os.altsep else path).split(os.sep))


def installed_package(path: Path) -> str | None:
    """The installed package ``path`` is a file of: the name below its innermost
    ``site-packages`` (``extpkg`` for ``.../site-packages/extpkg/ops.py``, ``six`` for
    ``.../site-packages/six.py``); None outside an installed environment."""
    parts = path.parts
    for i in range(len(parts) - 2, -1, -1):
        if parts[i] in INSTALLED_FOLDERS:
            return parts[i + 1].removesuffix(".py")
    return None


def reported_at_registrations(path: Path) -> bool:
    """Whether the findings of ``path`` are made at the checked files' registrations instead
    of in it: it is a file of an installed package, outside every path the run checks (the
    user cannot edit it, and nothing outside the checked paths is reported)."""
    if not is_installed(path):
        return False
    real = Path(os.path.realpath(path))
    return not any(real.is_relative_to(checked) for checked in _roots.checked)


def project_folders(importer_folder: Path) -> list[Path]:
    """The folders an absolute import of a file in ``importer_folder`` (a real path) may be
    resolved from in the checked project, nearest first: each folder from it up to the
    project's root (the nearest holding one of :data:`PROJECT_MARKERS`; without one, the
    folder and its parent), and the ``src`` folder of each."""
    chain = [importer_folder, *importer_folder.parents][: MAX_PROJECT_DEPTH + 1]
    top = next((depth for depth, folder in enumerate(chain) if _is_project_root(folder)), None)
    reach = chain[: top + 1] if top is not None else chain[:2]
    found: list[Path] = []
    for folder in reach:
        found += [folder, folder / "src"]
    return found


def _is_project_root(folder: Path) -> bool:
    return any(os.path.exists(folder / marker) for marker in PROJECT_MARKERS)


def checked_beside(package_root: Path) -> list[Path]:
    """The paths the run checks that lie beside the package whose folder is
    ``package_root``: outside it, and inside its project (see :func:`project_folders`) or
    holding it."""
    top = project_folders(package_root.parent)[-2]
    return [
        path
        for path in _roots.checked
        if not path.is_relative_to(package_root) and (path.is_relative_to(top) or package_root.is_relative_to(path))
    ]
