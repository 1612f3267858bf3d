"""Where an import leads on disk, by path alone: nothing is imported or run.

Relative imports resolve from the importing file's folder. An absolute one resolves from
the first import root that holds its top-level name, in order: the importing file's own
top-level package (regular or namespace); the checked project's folders
(:func:`checker.reading.environment.project_folders`: a script's ``from pkg import config``
finds ``src/pkg/``); the environment's ``site-packages`` (installed packages). A file of
an installed package resolves only inside its own package, as do the standard library's
names and torch's anywhere (the checker models torch itself).
"""

from __future__ import annotations

import hashlib
import os
import stat
import sys
from collections.abc import Iterable, Iterator, Set
from pathlib import Path

from checker.reading.discovery import Tree
from checker.reading.environment import NEVER_INSTALLED, checked_beside, import_roots, is_installed, project_folders
from checker.reading.source import bytes_or_none, file_digest


def import_name(module: Path) -> str:
    """The name a module is imported by: ``config`` for ``pkg/config.py``, ``pkg`` for its
    ``__init__.py``. Like every file name it may hold surrogate escapes (bytes not valid in
    the file system's encoding): encode it with ``surrogateescape``, back to the bytes on disk."""
    return module.parent.name if module.name == "__init__.py" else module.stem


def module_file(importer: Path, qualified: str) -> Path | None:
    """The file of the module ``qualified`` names (``pkg.config``, ``.config``) as imported
    by ``importer``: ``config.py`` or ``config/__init__.py``; None outside its package."""
    base, parts = _base(importer, qualified)
    if base is None or not parts:
        return None
    folder = base.joinpath(*parts)
    for candidate in (folder.with_suffix(".py"), folder / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


#: The suffixes of modules that are not Python source: extension modules and stubs.
_COMPILED = (".so", ".pyd", ".pyi")


def names_a_submodule(package: Path, name: str) -> bool:
    """Whether ``name`` in the package whose ``__init__.py`` is ``package`` is a module of
    it: a folder, or an extension module (``torch/_C.cpython-311-x86_64-linux-gnu.so``)."""
    folder = package.parent
    if (folder / name).is_dir():
        return True
    try:
        return any(entry.name.startswith(name + ".") and entry.name.endswith(_COMPILED) for entry in os.scandir(folder))
    except OSError:
        return False


def project_root(path: Path) -> Path | None:
    """The folder of the top-level package ``path`` belongs to (the checked project, as far
    as imports reach), or None for a module outside a package."""
    return top_package(path)


def project_files(root: Path, skip: Set[str]) -> Iterator[Path]:
    """Every ``.py`` file under ``root``, folders named in ``skip`` left out, in a stable order.

    Links to folders are not followed (the files of one inside the project are listed
    under their real folder), and a link to a file is listed only when it leads inside
    ``root``: nothing outside the project is read for its sake (checker.reading.discovery)."""
    tree = Tree(os.path.realpath(root))
    for folder, folders, files in os.walk(root):
        folders[:] = sorted(name for name in folders if name not in skip)
        for name in sorted(files):
            if name.endswith(".py") and _regular_inside(path := os.path.join(folder, name), tree):
                yield Path(path)


def _regular_inside(path: str, tree: Tree) -> bool:
    """Whether ``path`` is a regular file (reading a FIFO named like a module would block
    the run), or a link to one inside ``tree``."""
    try:
        mode = os.lstat(path).st_mode
    except OSError:
        return False
    if stat.S_ISLNK(mode):
        return tree.holds(path) and os.path.isfile(path)
    return stat.S_ISREG(mode)


def tree_digest(root: Path, files: Iterable[tuple[Path, bytes]]) -> str:
    """A digest of the ``(path, bytes)`` of a project's files: a result that depends on
    what any file of it does (a change of ``config.X`` anywhere) depends on this."""
    digest = hashlib.sha256()
    for path, data in files:
        name = os.path.relpath(path, root).replace(os.sep, "/")
        digest.update(name.encode("utf-8", "surrogatepass") + b"\0" + hashlib.sha256(data).digest())
    return digest.hexdigest()


def files_beside(root: Path, skip: Set[str]) -> tuple[list[tuple[str, bytes]], tuple[tuple[str, str], ...]]:
    """The ``.py`` files of the run's checked paths beside the package whose folder is
    ``root`` (:func:`checker.reading.environment.checked_beside`: a src layout's scripts,
    tests, examples), each once by real path with its bytes; and what an answer read from
    them depends on: each checked folder with the digest of its files (:func:`tree_digest`,
    as the cache computes it again), each checked file with the sha256 of its bytes."""
    files: dict[str, bytes] = {}
    depends = []
    for path in checked_beside(root):
        if path.is_dir():
            listed = list(project_files(path, skip))
            datas = [bytes_or_none(file) for file in listed]
            depends.append((str(path), tree_digest(path, zip(listed, datas, strict=True))))
            found = zip(listed, datas, strict=True)
        elif path.suffix == ".py" and (digest := file_digest(path)) is not None:
            depends.append((str(path), digest))
            found = zip([path], [bytes_or_none(path)], strict=True)
        else:
            continue
        for file, data in found:
            real = os.path.realpath(file)
            if not Path(real).is_relative_to(root):
                files.setdefault(real, data)
    return sorted(files.items()), tuple(depends)


def _base(importer: Path, qualified: str) -> tuple[Path | None, list[str]]:
    """The folder a qualified import name is resolved from, and its parts."""
    dots = len(qualified) - len(qualified.lstrip("."))
    parts = qualified[dots:].split(".") if qualified[dots:] else []
    if dots:
        base = importer.parent
        for _ in range(dots - 1):
            base = base.parent
        return base, parts
    if not parts:
        return None, parts
    own = _package_root(importer, parts[0])
    if own is not None:
        return own, parts
    return next((root for root, holds in _outside_roots(importer, parts[0]) if holds), None), parts


def _outside_roots(importer: Path, name: str) -> list[tuple[Path, bool]]:
    """The import roots outside the importer's own package, in order, each with whether it
    holds the top-level ``name``, up to the first that does (kept for the run)."""
    if name in sys.stdlib_module_names or name in NEVER_INSTALLED or not name.isidentifier():
        return []
    folder = real_path(importer).parent
    package = top_package(importer)
    start = package.parent if package is not None else folder  # where Python itself would start
    settings = import_roots()
    known = settings.found
    if known is not None and (start, name) in known:
        return known[start, name]
    found: list[tuple[Path, bool]] = []
    if not is_installed(folder):  # an installed package's imports stay inside it: no hop to another package
        roots = [(root, root.name == "src") for root in project_folders(start)]
        roots += [(root, True) for root in settings.installed] if settings.enabled else []
        for root, loose in roots:
            holds = (root / name / "__init__.py").is_file() or (root / f"{name}.py").is_file()
            holds = holds or loose and (root / name).is_dir()
            found.append((root, holds))
            if holds:
                break
    if known is not None:
        known[start, name] = found
    return found


def candidates(importer: Path, qualified: str) -> list[tuple[Path, str]]:
    """(module file, attribute) pairs ``qualified`` may name, the longest module first."""
    base, parts = _base(importer, qualified)
    if base is None:
        return []
    found = []
    for cut in range(len(parts), -1, -1):
        module, attribute = parts[:cut], ".".join(parts[cut:])
        if not attribute or "." in attribute:
            continue
        folder = base.joinpath(*module)
        for candidate in (folder.with_suffix(".py") if module else None, folder / "__init__.py"):
            if candidate is not None and candidate.is_file() and real_path(candidate) != real_path(importer):
                found.append((candidate, attribute))
    return found


def looked_for(importer: Path, qualified: str) -> list[Path]:
    """Every file :func:`candidates` and :func:`module_file` look for, there or not: an
    answer that found nothing at one depends on it staying absent. For a name found in an
    import root outside the importer's package, the roots before it too."""
    base, parts = _base(importer, qualified)
    found = []
    if parts and not qualified.startswith(".") and not _own_regular_package(importer, parts[0]):
        for root, holds in _outside_roots(importer, parts[0]):
            if not holds:
                found += [root / f"{parts[0]}.py", root / parts[0] / "__init__.py"]
    if base is None:
        return found
    for module in (parts[:-1], parts):
        folder = base.joinpath(*module)
        found += [folder.with_suffix(".py")] if module else []
        found.append(folder / "__init__.py")
    return found


def module_name(path: str) -> str | None:
    """The dotted name a file is imported as (``pkg/sub/mod.py`` -> ``pkg.sub.mod``), from
    its ``__init__.py`` chain; None outside a package."""
    file = real_path(Path(path))
    package = top_package(file)
    if package is None:
        return None
    parts = file.relative_to(package.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _package_root(importer: Path, name: str) -> Path | None:
    """The folder holding package ``name`` when ``importer`` is inside it: its regular
    package's, or for a namespace package (no ``__init__.py``), the parent of the
    nearest enclosing folder called ``name``. Other packages are never looked into.

    An enclosing folder is a namespace package only when no import root holds ``name``,
    as Python takes a namespace portion only when no package or module of the name is on
    its path: a project folder named as its package (``pkg/src/pkg``, ``pkg/pkg``) is not
    the package its scripts import."""
    package = top_package(importer)
    if package is not None and package.name == name:
        return package.parent
    if any(holds for _, holds in _outside_roots(importer, name)):
        return None
    for folder in real_path(importer).parents:
        if folder.name == name:
            return folder.parent
    return None


def _own_regular_package(importer: Path, name: str) -> bool:
    """Whether ``importer`` is inside the regular package ``name`` (``__init__.py`` chain)."""
    package = top_package(importer)
    return package is not None and package.name == name


def top_package(path: Path) -> Path | None:
    """The outermost folder of the regular package that holds ``path`` (``__init__.py`` chain),
    found once per run for each path (the index asks it of a few modules hundreds of times)."""
    tops = import_roots().tops
    if tops is not None and path in tops:
        return tops[path]
    folder = real_path(path).parent
    top = None
    while (folder / "__init__.py").is_file():
        top = folder
        if folder.parent == folder:
            break
        folder = folder.parent
    if tops is not None:
        tops[path] = top
    return top


def real_path(path: Path) -> Path:
    """``path.resolve()``, once per run for each path (outside a run, every time): its
    folder's real path (kept too), then the last name, followed only when it is a link. So
    the files of one folder cost one ``lstat`` each, not one per folder above them."""
    real = import_roots().real
    if real is None:
        return path.resolve()
    found = real.get(path)
    if found is None:
        if path.name in ("", ".", "..") or path.parent == path:
            found = path.resolve()
        else:
            found = real_path(path.parent) / path.name
            found = found.resolve() if found.is_symlink() else found
        real[path] = found
    return found
