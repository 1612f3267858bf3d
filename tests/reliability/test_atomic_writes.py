"""Writing the user's files loses nothing (issue 19): ``--fix``, ``--write-baseline`` and
cache entries go to a temporary file in the same folder that is renamed into place, so a
full disk leaves the old bytes whole (and no temporary file behind) and says so in one
line with exit status 2; a fix is written only over the very bytes it was computed from,
so a save made while the run checked the file is kept.

A full disk is ``RLIMIT_FSIZE`` in the child (writes past it fail with EFBIG, as on CI),
and, where this machine lets us mount one, a small tmpfs (ENOSPC)."""

from __future__ import annotations

import contextlib
import json
import os
import resource
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from processes import REPO, TIME_LIMIT, in_process
from projects import write

from checker.output import atomic
from checker.passes import paths
from checker.passes.session import Session

#: AIG407 (fixable) on line 4, then enough of a function that the file is a few KB.
FIXABLE = (
    "import torch\n\n\n@torch._dynamo.allow_in_graph\ndef f(x):\n"
    + "".join(f"    x = x + {n}  # keeps the body long enough to cross the limit\n" for n in range(80))
    + "    return x\n"
)
FIXED = FIXABLE.replace("torch._dynamo.allow_in_graph", "torch.compiler.allow_in_graph")
#: AIG301 on line 7.
CAPTURES = "import torch\n\nW = torch.ones(4)\n\n@torch.compiler.allow_in_graph\ndef scaled(x):\n    return x * W\n"


def limited(cwd: Path, *argv: str, file_size: int) -> subprocess.CompletedProcess[str]:
    """``aigcheck argv`` in a child that cannot write past ``file_size`` bytes of any file."""

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (file_size, file_size))

    return subprocess.run(
        [sys.executable, "-m", "checker", "--isolated", "-j", "1", *argv],
        cwd=cwd,
        env={**os.environ, "PYTHONPATH": str(REPO), "NO_COLOR": "1"},
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=TIME_LIMIT,
        preexec_fn=limit,  # (CPython ignores SIGXFSZ, so a write past the limit fails with EFBIG)
        check=False,
    )


def leftovers(folder: Path, *expected: str) -> list[str]:
    """The names in ``folder`` (recursively) other than ``expected``: temporary files left behind."""
    return sorted(str(path.relative_to(folder)) for path in folder.rglob("*") if path.name not in expected)


class TestFullDisk:
    def test_fix_leaves_the_source_whole(self, tmp_path: Path) -> None:
        source = write(tmp_path, {"m.py": FIXABLE}) / "m.py"
        result = limited(tmp_path, "--no-cache", "--fix", "m.py", file_size=1024)
        assert result.returncode == 2
        assert source.read_text() == FIXABLE
        assert result.stderr.splitlines() == [
            "aigcheck: error: cannot write the fixes of m.py: File too large; m.py is unchanged"
        ]
        assert "No findings." not in result.stdout
        assert "Fixed" not in result.stdout
        assert leftovers(tmp_path, "m.py") == []

    def test_write_baseline_leaves_the_old_one_whole(self, tmp_path: Path) -> None:
        write(tmp_path, {f"m{n}.py": CAPTURES for n in range(8)})
        baseline = tmp_path / "baseline.json"
        baseline.write_text('{"version": 1, "tool": "aigcheck", "findings": []}\n')
        before = baseline.read_bytes()
        result = limited(tmp_path, "--no-cache", "--write-baseline", "baseline.json", ".", file_size=1024)
        assert result.returncode == 2
        assert baseline.read_bytes() == before
        assert result.stderr.splitlines() == [
            "aigcheck: error: cannot write the baseline baseline.json: File too large; baseline.json is unchanged"
        ]
        assert leftovers(tmp_path, *(f"m{n}.py" for n in range(8)), "baseline.json") == []

    def test_the_cache_leaves_no_temporary_files(self, tmp_path: Path) -> None:
        write(tmp_path / "tree", {f"m{n}.py": CAPTURES for n in range(4)})
        # Room for the cache folder's .gitignore and CACHEDIR.TAG, not for an entry.
        result = limited(tmp_path / "tree", "--cache-dir", "../cache", "--output-format", "json", ".", file_size=100)
        assert result.returncode == 1, result.stderr
        assert len(json.loads(result.stdout)) == 4
        files = sorted(path.name for path in (tmp_path / "cache").rglob("*") if not path.is_dir())
        assert files == [".gitignore", "CACHEDIR.TAG"]


@contextlib.contextmanager
def small_disk(where: Path, size: str = "64k") -> Iterator[Path]:
    """A tmpfs of ``size`` mounted at ``where``; the test is skipped where mounting is not permitted."""
    where.mkdir()
    if shutil.which("mount") is None or sys.platform != "linux":
        pytest.skip("no mount(8) here")
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(where)], capture_output=True)
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs: {mounted.stderr.decode(errors='replace').strip()}")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], check=False)


def test_fix_on_a_full_tmpfs_leaves_the_source_whole(tmp_path: Path) -> None:
    # Two pages exactly, so that the fixed source (a byte longer) needs a page the disk lacks.
    page = FIXABLE + "#" * (8191 - len(FIXABLE)) + "\n"
    with small_disk(tmp_path / "disk") as disk:
        source = write(disk, {"m.py": page}) / "m.py"
        # Fill the disk but for less than the fixed file needs.
        with (disk / "filler").open("wb", buffering=0) as filler, contextlib.suppress(OSError):
            while True:
                filler.write(b"\0" * 512)
        result = limited(disk, "--no-cache", "--fix", "m.py", file_size=resource.RLIM_INFINITY)
        assert result.returncode == 2
        assert source.read_text() == page
        assert result.stderr.splitlines() == [
            "aigcheck: error: cannot write the fixes of m.py: No space left on device; m.py is unchanged"
        ]
        assert leftovers(disk, "m.py", "filler") == []


def checked_here(cwd: Path, *argv: str) -> tuple[int, str, str]:
    """``aigcheck argv`` (no configuration, no cache) run in this process from ``cwd``."""
    return in_process(cwd, "--isolated", "--no-cache", "-j", "1", *argv)


@pytest.fixture
def saved_meanwhile(monkeypatch: pytest.MonkeyPatch) -> str:
    """``m.py`` is saved anew after its report is made, before the run takes it in:
    an editor's save while ``--fix`` runs. Returns what the save writes."""
    saved = FIXABLE.replace("return x", "return x  # saved by the editor")

    class Racing(Session):
        def check(self, *args, **kwargs):  # type: ignore[no-untyped-def]
            checked = super().check(*args, **kwargs)
            for item in checked:
                if Path(item.job.path).name == "m.py":
                    Path(item.job.path).write_text(saved)
            return checked

    monkeypatch.setattr(paths, "Session", Racing)
    return saved


class TestChangedWhileChecked:
    def test_fix_keeps_the_save(self, tmp_path: Path, saved_meanwhile: str) -> None:
        source = write(tmp_path, {"m.py": FIXABLE}) / "m.py"
        status, out, err = checked_here(tmp_path, "--fix", "m.py")
        assert source.read_text() == saved_meanwhile
        assert status == 2
        assert err.splitlines() == [
            "aigcheck: error: not fixing m.py: it changed while it was checked; run aigcheck --fix again"
        ]
        assert "No findings." not in out and "Fixed" not in out

    def test_diff_is_not_made_against_other_bytes(self, tmp_path: Path, saved_meanwhile: str) -> None:
        write(tmp_path, {"m.py": FIXABLE})
        status, out, err = checked_here(tmp_path, "--diff", "m.py")
        assert (status, out) == (2, "")
        assert err.splitlines() == [
            "aigcheck: error: no diff of m.py: it changed while it was checked; run aigcheck --diff again"
        ]

    def test_other_files_are_still_fixed(self, tmp_path: Path, saved_meanwhile: str) -> None:
        write(tmp_path, {"m.py": FIXABLE, "other.py": FIXABLE})
        status, out, err = checked_here(tmp_path, "--fix", "m.py", "other.py")
        assert (tmp_path / "other.py").read_text() == FIXED
        assert status == 2
        assert len(err.splitlines()) == 1
        assert "Fixed 1 finding in 1 file." in out


class TestAtomicReplace:
    """The module ``--fix``, baselines, the cache (and ``--add-noqa`` later) write with."""

    def test_keeps_the_mode(self, tmp_path: Path) -> None:
        target = tmp_path / "run.py"
        target.write_bytes(b"old")
        target.chmod(0o751)
        atomic.replace_file(target, b"new")
        assert (target.read_bytes(), target.stat().st_mode & 0o7777) == (b"new", 0o751)

    def test_a_new_file_gets_the_usual_mode(self, tmp_path: Path) -> None:
        atomic.replace_file(tmp_path / "new.json", b"{}")
        umask = os.umask(0)
        os.umask(umask)
        assert (tmp_path / "new.json").stat().st_mode & 0o777 == 0o666 & ~umask

    def test_only_over_the_expected_bytes(self, tmp_path: Path) -> None:
        target = tmp_path / "m.py"
        target.write_bytes(b"saved meanwhile")
        with pytest.raises(atomic.ChangedMeanwhile):
            atomic.replace_file(target, b"fixed", expected=atomic.digest(b"checked"))
        assert target.read_bytes() == b"saved meanwhile"
        assert leftovers(tmp_path, "m.py") == []

    def test_over_the_expected_bytes(self, tmp_path: Path) -> None:
        target = tmp_path / "m.py"
        target.write_bytes(b"checked")
        atomic.replace_file(target, b"fixed", expected=atomic.digest(b"checked"))
        assert target.read_bytes() == b"fixed"

    def test_a_file_that_went_away_is_not_made_again(self, tmp_path: Path) -> None:
        with pytest.raises(atomic.ChangedMeanwhile):
            atomic.replace_file(tmp_path / "gone.py", b"fixed", expected=atomic.digest(b"checked"))
        assert leftovers(tmp_path) == []

    def test_writes_through_a_link_to_the_file(self, tmp_path: Path) -> None:
        (tmp_path / "real.py").write_bytes(b"old")
        (tmp_path / "link.py").symlink_to("real.py")
        atomic.replace_file(tmp_path / "link.py", b"new")
        assert (tmp_path / "link.py").is_symlink()
        assert (tmp_path / "real.py").read_bytes() == b"new"

    def test_removes_the_temporary_file_when_the_rename_fails(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        def refuse(*args: object, **kwargs: object) -> None:
            raise PermissionError(13, "Permission denied")

        monkeypatch.setattr(os, "rename", refuse)
        monkeypatch.setattr(os, "replace", refuse)
        with pytest.raises(PermissionError):
            atomic.replace_file(tmp_path / "m.py", b"new")
        assert leftovers(tmp_path) == []
