"""Writing a file whole or not at all, and only over the bytes the writer expects.

Every file aigcheck writes (a fixed source, a baseline, a cache entry) goes to a
temporary file created anew in the same folder, and is renamed over the old one only
once it is written (and, for a person's files, on the disk): a full disk, a signal or
a crash leaves the old file whole, and the temporary file is removed on every error.
A fix is renamed into place only if the file still holds the bytes the fix was computed
from (``expected``), so a save made meanwhile is never overwritten by a fix of the bytes
before it. (The check and the rename are two system calls: a save landing between them,
microseconds apart, is the one case not caught.)

A folder is opened once (:class:`Folder`) and its names are reached through it without
following symbolic links, so a link planted in a folder aigcheck owns (the cache's) is
replaced, never written through. Where the platform has no ``dir_fd`` (Windows), names
are joined to the folder's path and a link is checked for before each step.
"""

from __future__ import annotations

import errno
import hashlib
import os
import secrets
import stat
from collections.abc import Iterator
from contextlib import contextmanager

from checker.reading.source import NotRegularFile, read_source, regular_digest

_AT = os.open in os.supports_dir_fd and os.stat in os.supports_dir_fd and os.mkdir in os.supports_dir_fd
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_FOLDER_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0)
_CREATE_FLAGS = (
    os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | getattr(os, "O_BINARY", 0) | getattr(os, "O_CLOEXEC", 0)
)


class ChangedMeanwhile(Exception):
    """The file no longer holds the bytes it was expected to hold (it was saved, or went
    away, since it was read); nothing was written."""


def digest(data: bytes) -> str:
    """The digest ``expected`` compares: SHA-256, in hex."""
    return hashlib.sha256(data).hexdigest()


def replace_file(path: str | os.PathLike[str], data: bytes, *, expected: str | None = None) -> None:
    """Make ``data`` the content of the file at ``path``, whole or not at all, keeping its
    mode; only if it still has the bytes whose :func:`digest` is ``expected``, when given
    (else :class:`ChangedMeanwhile`). A link to the file is kept and the file it names is
    written. ``OSError`` when it cannot be written; the old file is then unchanged."""
    target = os.path.realpath(path)
    with open_folder(os.path.dirname(target)) as folder:
        folder.write(os.path.basename(target), data, expected=expected, durable=True)


@contextmanager
def open_folder(path: str | os.PathLike[str], *, follow: bool = True, create: bool = False) -> Iterator[Folder]:
    """The folder at ``path`` (made, with its parents, when ``create``); ``follow=False``:
    ``OSError`` when ``path`` itself is a symbolic link."""
    path = os.fspath(path)
    if create:
        os.makedirs(path, exist_ok=True)
    if not _AT:
        if not follow and os.path.islink(path):
            raise OSError(errno.ELOOP, "a symbolic link", path)
        yield Folder(path, None)
        return
    descriptor = os.open(path, _FOLDER_FLAGS | (0 if follow else _NOFOLLOW))
    try:
        yield Folder(path, descriptor)
    finally:
        os.close(descriptor)


class Folder:
    """An open folder whose names are reached without following symbolic links."""

    def __init__(self, path: str, descriptor: int | None) -> None:
        self.path = path
        #: The folder itself, open: a link swapped in for it (or above it) later leads nowhere.
        self.descriptor = descriptor

    @contextmanager
    def child(self, name: str, *, create: bool = False) -> Iterator[Folder]:
        """The folder ``name`` in this one; with ``create``, made when missing, and a
        symbolic link (or a file) there replaced by a folder. ``OSError`` when there is no
        folder there (a link is none) and ``create`` is off."""
        if create and self.kind(name) not in (None, stat.S_IFDIR):
            os.unlink(self._name(name), dir_fd=self.descriptor)  # only the name is removed, never what it names
        if create and self.kind(name) is None:
            with _tolerating(FileExistsError):
                os.mkdir(self._name(name), dir_fd=self.descriptor)
        path = os.path.join(self.path, name)
        if self.descriptor is None:
            if os.path.islink(path) or not os.path.isdir(path):
                raise OSError(errno.ENOTDIR, "not a folder", path)
            yield Folder(path, None)
            return
        descriptor = os.open(name, _FOLDER_FLAGS | _NOFOLLOW, dir_fd=self.descriptor)
        try:
            yield Folder(path, descriptor)
        finally:
            os.close(descriptor)

    def kind(self, name: str) -> int | None:
        """The file type of ``name`` (``stat.S_IFREG``, ``S_IFDIR``, ``S_IFLNK``...), the
        link itself for a link; None when there is nothing there."""
        status = self._status(name)
        return None if status is None else stat.S_IFMT(status.st_mode)

    def remove_empty(self, name: str) -> None:
        """Remove the folder ``name``; ``OSError`` when it holds anything (or is no folder)."""
        os.rmdir(self._name(name), dir_fd=self.descriptor)

    def is_empty(self) -> bool:
        with os.scandir(self.descriptor if self.descriptor is not None else self.path) as entries:
            return next(entries, None) is None

    def read(self, name: str, limit: int) -> bytes:
        """The bytes of the regular file ``name`` (never what a link names); ``OSError``
        for anything else, or for a file over ``limit`` bytes."""
        if self.descriptor is None and os.path.islink(self._name(name)):
            raise OSError(errno.ELOOP, "a symbolic link", name)
        data = read_source(self._name(name), limit, dir_fd=self.descriptor, follow=False)
        if data is None:
            raise OSError(errno.EFBIG, "larger than the limit", name)
        return data

    def write(self, name: str, data: bytes, *, expected: str | None = None, durable: bool = False) -> None:
        """Make ``data`` the file ``name`` of this folder, whole or not at all (see
        :func:`replace_file`); a link there is replaced, not followed. ``durable``: on the
        disk before the rename, and the rename too, as a person's file must be."""
        old = self._status(name)
        if expected is not None and old is None:
            raise ChangedMeanwhile(name)
        if old is not None and not (stat.S_ISREG(old.st_mode) or stat.S_ISLNK(old.st_mode)):
            raise OSError(errno.EINVAL, "not a regular file", name)
        keep = old if old is not None and stat.S_ISREG(old.st_mode) else None
        temporary, descriptor = self._create(0o600 if keep is not None else 0o666)
        try:
            try:
                _write_all(descriptor, data)
                if keep is not None:
                    _keep_owner_and_mode(descriptor, self._name(temporary), keep)
                if durable:
                    os.fsync(descriptor)
            finally:
                os.close(descriptor)
            if expected is not None and self._digest(name) != expected:
                raise ChangedMeanwhile(name)
            os.replace(self._name(temporary), self._name(name), src_dir_fd=self.descriptor, dst_dir_fd=self.descriptor)
        except BaseException:
            with _tolerating(OSError):
                os.unlink(self._name(temporary), dir_fd=self.descriptor)
            raise
        if durable and self.descriptor is not None:
            with _tolerating(OSError):  # not every file system syncs a folder
                os.fsync(self.descriptor)

    # -- helpers ---------------------------------------------------------------------

    def _name(self, name: str) -> str:
        """``name`` as the ``os`` calls given ``dir_fd=self.descriptor`` take it."""
        return name if self.descriptor is not None else os.path.join(self.path, name)

    def _status(self, name: str) -> os.stat_result | None:
        try:
            return os.stat(self._name(name), dir_fd=self.descriptor, follow_symlinks=False)
        except FileNotFoundError:
            return None

    def _create(self, mode: int) -> tuple[str, int]:
        """A new temporary file, its name and descriptor: made here, never found here."""
        for _ in range(100):
            name = f".aigcheck-{secrets.token_hex(6)}.tmp"
            with _tolerating(FileExistsError):
                return name, os.open(self._name(name), _CREATE_FLAGS, mode, dir_fd=self.descriptor)
        raise FileExistsError(errno.EEXIST, "no free temporary name", self.path)

    def _digest(self, name: str) -> str | None:
        """The digest of the file ``name`` now (None when it is gone or not a regular file)."""
        try:
            return regular_digest(self._name(name), dir_fd=self.descriptor)
        except (FileNotFoundError, NotRegularFile):
            return None


def _write_all(descriptor: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(descriptor, view) :]


def _keep_owner_and_mode(descriptor: int, path: str, old: os.stat_result) -> None:
    """The old file's permissions (and owner, where this process may give it) on the new one."""
    if hasattr(os, "fchown") and (old.st_uid, old.st_gid) != (os.geteuid(), os.getegid()):
        with _tolerating(OSError):  # only root may give a file away; the mode still holds
            os.fchown(descriptor, old.st_uid, old.st_gid)
    os.chmod(descriptor if os.chmod in os.supports_fd else path, stat.S_IMODE(old.st_mode))


@contextmanager
def _tolerating(*errors: type[BaseException]) -> Iterator[None]:
    try:
        yield
    except errors:
        pass
