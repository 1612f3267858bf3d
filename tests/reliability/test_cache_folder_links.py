"""The cache folder never leads a write (or a read) out of itself (issue 19): a cloned
repository may commit ``.aigcheck_cache/`` with its ``CACHEDIR.TAG``, ``.gitignore`` or
entry folders as symbolic links to files of the person who checks it, and checking the
tree overwrote them. The cache's own files and folders are made without following links;
a default cache folder that is itself a link is not used (a one-line warning, and the run
goes on without the cache)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from processes import in_process
from projects import write

from checker.passes.cache import CACHE_DIR_NAME, Cache
from checker.passes.engine import FileReport, LinkedReport
from checker.spec.findings import Finding, Severity

CAPTURES = "import torch\n\nW = torch.ones(4)\n\n@torch.compiler.allow_in_graph\ndef scaled(x):\n    return x * W\n"
VICTIM = b"the checking person's own file\n"


def aigcheck(cwd: Path, *argv: str) -> tuple[int, list[tuple[str, str]], str]:
    """``aigcheck --output-format json`` (the cache on) run from ``cwd``: status, (path, code) found, stderr."""
    status, out, err = in_process(cwd, "--isolated", "-q", "-j", "1", "--output-format", "json", *argv)
    return status, [(finding["path"], finding["code"]) for finding in json.loads(out or "[]")], err


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """A checked-out tree with one AIG301, beside a folder of the person's own files."""
    write(tmp_path / "tree", {"m.py": CAPTURES, "n.py": CAPTURES})
    (tmp_path / "home").mkdir()
    (tmp_path / "home" / "victim").write_bytes(VICTIM)
    return tmp_path / "tree"


def committed_cache(tree: Path) -> Path:
    (tree / CACHE_DIR_NAME).mkdir()
    return tree / CACHE_DIR_NAME


def expected_run(tree: Path) -> tuple[int, list[tuple[str, str]], str]:
    return 1, [("m.py", "AIG301"), ("n.py", "AIG301")], ""


def untouched(home: Path) -> list[str]:
    """What is in ``home`` apart from the victim (nothing), and asserts the victim kept its bytes."""
    assert (home / "victim").read_bytes() == VICTIM
    return sorted(path.name for path in home.iterdir() if path.name != "victim")


@pytest.mark.parametrize("name", ["CACHEDIR.TAG", ".gitignore"])
def test_a_linked_marker_file_is_not_written_through(tree: Path, name: str) -> None:
    (committed_cache(tree) / name).symlink_to("../../home/victim")
    assert aigcheck(tree, ".") == expected_run(tree)
    assert untouched(tree.parent / "home") == []
    assert not (tree / CACHE_DIR_NAME / name).is_symlink()


@pytest.mark.parametrize("name", ["CACHEDIR.TAG", ".gitignore"])
def test_a_dangling_marker_link_does_not_create_its_target(tree: Path, name: str) -> None:
    (committed_cache(tree) / name).symlink_to("../../home/planted")
    assert aigcheck(tree, ".") == expected_run(tree)
    assert untouched(tree.parent / "home") == []


def test_both_markers_linked(tree: Path) -> None:
    cache = committed_cache(tree)
    (cache / ".gitignore").symlink_to("../../home/victim")
    (cache / "CACHEDIR.TAG").symlink_to("../../home/victim")
    assert aigcheck(tree, ".") == expected_run(tree)
    assert untouched(tree.parent / "home") == []


def test_a_linked_entry_folder_is_not_written_into(tree: Path) -> None:
    (committed_cache(tree) / "1").symlink_to("../../home")
    assert aigcheck(tree, ".") == expected_run(tree)
    assert untouched(tree.parent / "home") == []
    assert aigcheck(tree, ".") == expected_run(tree)  # and the cache still works


def test_linked_entry_subfolders_are_not_written_into(tree: Path) -> None:
    entries = committed_cache(tree) / "1"
    entries.mkdir()
    for prefix in range(256):
        (entries / f"{prefix:02x}").symlink_to("../../../home")
    assert aigcheck(tree, ".") == expected_run(tree)
    assert untouched(tree.parent / "home") == []


def test_a_linked_cache_folder_is_not_used(tree: Path) -> None:
    (tree.parent / "home" / "cache").mkdir()
    (tree / CACHE_DIR_NAME).symlink_to("../home/cache")
    status, found, err = aigcheck(tree, ".")
    assert (status, found) == expected_run(tree)[:2]
    assert err == (
        f"aigcheck: warning: {CACHE_DIR_NAME} is a symbolic link; the cache is off for this run"
        " (remove the link, or name a folder with --cache-dir)\n"
    )
    assert list((tree.parent / "home" / "cache").iterdir()) == []


def test_a_cache_dir_named_on_the_command_line_may_be_a_link(tree: Path) -> None:
    (tree.parent / "home" / "cache").mkdir()
    (tree.parent / "shared-cache").symlink_to("home/cache")
    assert aigcheck(tree, "--cache-dir", "../shared-cache", ".") == expected_run(tree)
    assert (tree.parent / "home" / "cache" / "CACHEDIR.TAG").is_file()


FINDING = Finding("m.py", 7, 16, 7, 17, "AIG301", "captured-tensor", Severity.ERROR, "reads W", "0" * 32)
OUTCOME = LinkedReport(FileReport("m.py", (FINDING,), parsed=True))


class TestReads:
    """An entry is read only from the cache folder itself: a link there is a miss."""

    @pytest.fixture
    def cache(self, tmp_path: Path) -> Cache:
        cache = Cache(tmp_path / "cache", tmp_path)
        cache.put("ab" + "0" * 62, OUTCOME)
        assert cache.get("ab" + "0" * 62) == OUTCOME
        return cache

    def test_a_linked_entry_is_a_miss(self, cache: Cache, tmp_path: Path) -> None:
        entry = cache.directory / "1" / "ab" / ("ab" + "0" * 62 + ".json")
        entry.rename(tmp_path / "outside.json")
        entry.symlink_to(tmp_path / "outside.json")
        assert cache.get("ab" + "0" * 62) is None

    def test_an_entry_in_a_linked_folder_is_a_miss(self, cache: Cache, tmp_path: Path) -> None:
        folder = cache.directory / "1" / "ab"
        folder.rename(tmp_path / "outside")
        folder.symlink_to(tmp_path / "outside")
        assert cache.get("ab" + "0" * 62) is None

    def test_an_entry_under_a_linked_format_folder_is_a_miss(self, cache: Cache, tmp_path: Path) -> None:
        folder = cache.directory / "1"
        folder.rename(tmp_path / "outside")
        folder.symlink_to(tmp_path / "outside")
        assert cache.get("ab" + "0" * 62) is None
        assert not cache.holds_entries()
