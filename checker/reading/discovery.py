"""File discovery: which files a run checks, from the paths given on the command line.

A file named explicitly is always checked, whatever its name and whatever the
excludes say: the user asked for it, and it is read wherever a link leads. A directory
is walked for ``*.py`` files, skipping the usual tool and environment directories
(``.venv``, ``build``, ...) and whatever matches an ``--exclude`` pattern.

A symbolic link met while walking (to a file or a directory) is followed only when it
leads inside the directory named on the command line, the tree being checked: a link out
of it (to a virtual environment, a dependency, ``/``, or a bystander's files in a cloned
repository) is passed over without a word, as ruff does. Inside the tree each real
directory is walked once, so a link loop ends with a note rather than a hang. The
kernel's virtual file systems (``/proc``, ``/sys``, ``/dev`` and any mount of proc,
sysfs, devtmpfs, cgroup...: :func:`checker.reading.mounts.virtual_file_system`) are never walked, even when
named; any other file system inside the tree is, wherever it is mounted.

Problems met on the way (a directory that cannot be read, a loop, a virtual file system)
are yielded as :class:`DiscoveryProblem` values among the sources, so the caller can
report them and go on. A file to check that is not a regular file (a FIFO would block
the reader, ``/dev/zero`` never ends) is yielded with its :class:`SpecialFile` kind, for
the caller to report without opening it.

Nothing here reads file contents or writes anything.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from enum import Enum

from checker.reading.globs import Dialect, PatternSet
from checker.reading.mounts import virtual_file_system

#: Directory and file names never walked into, unless named explicitly.
DEFAULT_EXCLUDES: frozenset[str] = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        ".venv",
        "venv",
        ".tox",
        ".nox",
        ".eggs",
        "build",
        "dist",
        "__pycache__",
        "node_modules",
        ".mypy_cache",
        ".pytest_cache",
        ".ruff_cache",
        ".aigcheck_cache",
    }
)

#: The path argument that means "read the source from standard input".
STDIN = "-"

# A directory's identity on disk: the same (device, inode) is the same directory
# whatever the path (or link) it was reached through.
_DirId = tuple[int, int]


class SpecialFile(Enum):
    """What a path to check is when it is not a regular file; the value names it."""

    FIFO = "a FIFO"
    CHARACTER_DEVICE = "a character device"
    BLOCK_DEVICE = "a block device"
    SOCKET = "a socket"
    DIRECTORY = "a directory"
    OTHER = "a special file"

    @property
    def reason(self) -> str:
        """Why the file was not checked, as its AIG900 finding says."""
        return (
            f"not a regular file: {self.value}; it was not opened, as reading it could block "
            "or never end; exclude it or name regular files"
        )


@dataclass(frozen=True)
class Source:
    """One file to check.

    ``path`` is where to read it (``None`` for standard input); ``display`` is how
    findings name it: the path as the user spelled it, joined with the path inside
    the walked directory. ``special`` is set when the path is not a regular file: it
    must never be opened.
    """

    path: str | None
    display: str
    explicit: bool = False
    special: SpecialFile | None = None

    @property
    def is_stdin(self) -> bool:
        return self.path is None


@dataclass(frozen=True)
class DiscoveryProblem:
    """Something that could not be walked; the run goes on without it."""

    path: str
    reason: str

    def __str__(self) -> str:
        return f"skipped '{self.path}': {self.reason}"


class MissingPathError(Exception):
    """A path given on the command line does not exist (a usage error)."""

    def __init__(self, path: str) -> None:
        super().__init__(f"path '{path}' does not exist")
        self.path = path


def discover(
    paths: Sequence[str],
    exclude: Sequence[str] = (),
    stdin_filename: str = "<stdin>",
) -> Iterator[Source | DiscoveryProblem]:
    """The files to check under ``paths``, each once, in a deterministic order.

    Arguments are taken in the order given; inside a directory, entries are taken in
    name order, depth first. ``-`` stands for standard input, shown as
    ``stdin_filename``. ``exclude`` holds ``fnmatch`` patterns, matched against each
    entry's name, its path relative to the argument and its displayed path (compiled
    once: :class:`~checker.reading.globs.PatternSet`); they add to :data:`DEFAULT_EXCLUDES` and
    never apply to a path named explicitly.

    Raises :class:`MissingPathError` before yielding anything if an argument does not
    exist, so that a typo does not produce a half-finished run.
    """
    for argument in paths:
        if argument != STDIN and not os.path.lexists(argument):
            raise MissingPathError(argument)
    return _Walker(exclude_patterns(exclude), stdin_filename).run(paths)


def exclude_patterns(exclude: Iterable[str]) -> PatternSet:
    """``fnmatch`` exclude patterns compiled once, as discovery matches them: a trailing
    ``/`` (a folder, as written) dropped."""
    return PatternSet((pattern.rstrip("/") or pattern for pattern in exclude), Dialect.FNMATCH)


@dataclass(frozen=True)
class _Frame:
    """A directory still to list. ``ancestors`` maps the id of each directory above
    it (itself included) to its shown path: a link to one of them is a loop, while a
    link to any other directory already walked is merely a second route. ``device`` is
    its file system's: an entry on another one is a mount point, looked at twice."""

    directory: str
    relative: str
    ancestors: dict[_DirId, str]
    device: int


class _Walker:
    """The state of one discovery: what has been yielded and walked so far."""

    def __init__(self, patterns: PatternSet, stdin_filename: str) -> None:
        self._patterns = patterns
        self._stdin_filename = stdin_filename
        self._seen_files: set[object] = set()
        self._walked_dirs: set[_DirId] = set()
        self._stdin_taken = False

    def run(self, paths: Sequence[str]) -> Iterator[Source | DiscoveryProblem]:
        for argument in paths:
            if argument == STDIN:
                # Standard input can be read only once, however often "-" is given.
                if not self._stdin_taken:
                    self._stdin_taken = True
                    yield Source(None, self._stdin_filename, explicit=True)
            elif os.path.isdir(argument):
                yield from self._walk(argument)
            else:
                # Anything else named explicitly is read as a file, even a broken
                # link or a name without ".py": the engine reports what it cannot read.
                source = Source(argument, _display(argument), explicit=True, special=special_file(argument))
                if self._first_time(argument):
                    yield source

    def _walk(self, root: str) -> Iterator[Source | DiscoveryProblem]:
        root_id = _dir_id(root)
        if root_id is None or root_id in self._walked_dirs:
            return
        self._walked_dirs.add(root_id)
        shown_root = _display(root)
        virtual = virtual_file_system(root)
        if virtual is not None:
            yield _not_walked(shown_root, virtual)
            return
        tree = Tree(os.path.realpath(root))
        # An explicit stack rather than recursion, so that a deep tree cannot hit the
        # recursion limit. It holds what is still to do, nearest last: a directory to
        # list, or an item to yield. Pushing a directory's entries in
        # reverse name order makes files and subdirectories come out interleaved by
        # name, depth first, which is the order of the sorted path components.
        stack: list[_Frame | Source | DiscoveryProblem] = [_Frame(root, "", {root_id: shown_root}, root_id[0])]
        while stack:
            task = stack.pop()
            if isinstance(task, DiscoveryProblem):
                yield task
            elif isinstance(task, Source):
                # Checked when yielded, so a file reached twice keeps its first name.
                if task.path is not None and self._first_time(task.path):
                    yield task
            else:
                stack.extend(reversed(list(self._list(task, shown_root, tree))))

    def _list(self, frame: _Frame, shown_root: str, tree: Tree) -> Iterator[_Frame | Source | DiscoveryProblem]:
        """The entries of one directory to walk or yield, in name order."""
        try:
            entries = sorted(os.scandir(frame.directory), key=lambda entry: entry.name)
        except OSError as error:
            shown = _join(shown_root, frame.relative) or "."
            yield DiscoveryProblem(shown, f"cannot read the directory: {_reason(error)}")
            return
        for entry in entries:
            relative = _join(frame.relative, entry.name)
            shown = _join(shown_root, relative)
            if self._excluded(entry.name, relative, shown):
                continue
            if _is_link(entry) and not tree.holds(entry.path):
                continue  # it leads out of the tree being checked
            if _is_dir(entry):
                entry_id = _dir_id(entry.path)
                if entry_id is None:
                    continue
                if entry_id[0] != frame.device and (virtual := virtual_file_system(entry.path)) is not None:
                    yield _not_walked(shown, virtual)
                elif entry_id in frame.ancestors:
                    yield DiscoveryProblem(
                        shown,
                        f"symbolic link loop: it leads back to '{frame.ancestors[entry_id]}', "
                        "which contains it; not followed",
                    )
                elif entry_id not in self._walked_dirs:
                    # Marked when queued rather than when listed, so that a second
                    # link to the same directory is not queued as well.
                    self._walked_dirs.add(entry_id)
                    yield _Frame(entry.path, relative, {**frame.ancestors, entry_id: shown}, entry_id[0])
            elif entry.name.endswith(".py"):
                yield Source(entry.path, shown, special=special_file(entry))

    def _excluded(self, name: str, relative: str, shown: str) -> bool:
        if name in DEFAULT_EXCLUDES:
            return True
        return bool(self._patterns) and any(self._patterns.matches(candidate) for candidate in (name, relative, shown))

    def _first_time(self, path: str) -> bool:
        """Whether the file at ``path`` has not been yielded yet, by any route."""
        try:
            status = os.stat(path)
            key: object = (status.st_dev, status.st_ino)
        except OSError:
            # Unreadable or a broken link: fall back to the resolved name.
            key = os.path.realpath(path)
        if key in self._seen_files:
            return False
        self._seen_files.add(key)
        return True


@dataclass(frozen=True)
class Tree:
    """The real path of the directory a walk started from: the tree being checked."""

    root: str

    def holds(self, path: str) -> bool:
        """Whether ``path``, links resolved, is inside the tree."""
        real = os.path.realpath(path)
        return real == self.root or real.startswith(self.root.rstrip(os.sep) + os.sep)


def _not_walked(shown: str, virtual: str) -> DiscoveryProblem:
    return DiscoveryProblem(
        shown, f"a virtual file system ({virtual}), whose files are not source; not walked (name a file to check it)"
    )


def _is_link(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_symlink()
    except OSError:
        return False


def _is_dir(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir(follow_symlinks=True)
    except OSError:
        return False


_SPECIAL_KINDS = (
    (stat.S_ISFIFO, SpecialFile.FIFO),
    (stat.S_ISCHR, SpecialFile.CHARACTER_DEVICE),
    (stat.S_ISBLK, SpecialFile.BLOCK_DEVICE),
    (stat.S_ISSOCK, SpecialFile.SOCKET),
    (stat.S_ISDIR, SpecialFile.DIRECTORY),
)


def special_file(path: str | int | os.DirEntry[str]) -> SpecialFile | None:
    """What the file at ``path`` (links followed; or an open file descriptor) is unless
    it is a regular file. ``stat`` never opens the file, so it cannot block on a FIFO.
    """
    try:
        mode = path.stat().st_mode if isinstance(path, os.DirEntry) else os.stat(path).st_mode
    except OSError:
        # Not known to be special (a broken link, an unreadable entry): whoever opens it
        # says why it cannot be read, the engine in an AIG900 (where users look for files
        # that were not checked).
        return None
    if stat.S_ISREG(mode):
        return None
    return next((kind for is_kind, kind in _SPECIAL_KINDS if is_kind(mode)), SpecialFile.OTHER)


def _dir_id(path: str) -> _DirId | None:
    try:
        status = os.stat(path)
    except OSError:
        return None
    return (status.st_dev, status.st_ino)


def _display(argument: str) -> str:
    """The argument as findings show it: ``./a.py`` as ``a.py``, ``src/`` as ``src``."""
    return os.path.normpath(argument) if argument else argument


def _join(base: str, name: str) -> str:
    if not base or base == ".":
        return name
    if not name:
        return base
    return f"{base}/{name}" if not base.endswith("/") else f"{base}{name}"


def _reason(error: OSError) -> str:
    return error.strerror or type(error).__name__
