"""The cache is keyed to the checked tree (issue 12): a copied tree, a restored cache or two
checkouts sharing one ``--cache-dir`` give exactly the ``--no-cache`` answer, a file that
appears where an import found nothing is noticed, and a corrupt entry is only a miss."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from processes import in_process
from projects import write

from checker.passes import cache
from checker.passes.cache import CACHE_DIR_NAME, MAX_ENTRY_BYTES

HELPERS = """\
import torch

W = torch.ones(4)

def normalize(x):
    return x * W
"""
OPS = """\
import torch
from .helpers import normalize


@torch.compiler.allow_in_graph
def scaled(x):
    return normalize(x)
"""
KERNELS = """\
import torch

W = torch.ones(4)

def scaled(x):
    return x * W
"""
REGISTER = """\
import torch
from .kernels import scaled

torch.compiler.allow_in_graph(scaled)
"""
FIXED_HELPERS = HELPERS.replace("x * W", "x * 2")


def aigcheck(cwd: Path, *argv: str) -> tuple[int, list[dict[str, object]]]:
    """``aigcheck --output-format json`` run from ``cwd``: the exit status and the JSON findings."""
    status, out, _ = in_process(cwd, "--isolated", "-q", "-j", "1", "--output-format", "json", *argv)
    return status, json.loads(out or "[]")


def cached(cwd: Path, cache: Path, *argv: str) -> tuple[int, list[dict[str, object]]]:
    return aigcheck(cwd, "--cache-dir", str(cache), *argv)


def uncached(cwd: Path, *argv: str) -> tuple[int, list[dict[str, object]]]:
    return aigcheck(cwd, "--no-cache", *argv)


def codes(result: tuple[int, list[dict[str, object]]]) -> list[tuple[object, object]]:
    return [(finding["path"], finding["code"]) for finding in result[1]]


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    return write(
        tmp_path / "first",
        {"pyproject.toml": "", "pkg/__init__.py": "", "pkg/helpers.py": HELPERS, "pkg/ops.py": OPS},
    )


class TestCopiedTree:
    def test_a_helper_fixed_in_the_copy_is_fixed(self, tree: Path, tmp_path: Path) -> None:
        cache = tmp_path / "cache"
        assert codes(cached(tree, cache, "pkg")) == [("pkg/ops.py", "AIG301")]
        copy = Path(shutil.copytree(tree, tmp_path / "second"))
        (copy / "pkg/helpers.py").write_text(FIXED_HELPERS)
        assert cached(copy, cache, "pkg") == uncached(copy, "pkg") == (0, [])
        # The first checkout, unchanged, still gets its own answer from the shared cache.
        assert cached(tree, cache, "pkg") == uncached(tree, "pkg")

    def test_a_registration_fixed_in_the_copy_names_no_file_of_the_first(self, tmp_path: Path) -> None:
        first = write(
            tmp_path / "first",
            {"pyproject.toml": "", "pkg/__init__.py": "", "pkg/kernels.py": KERNELS, "pkg/register.py": REGISTER},
        )
        cache = tmp_path / "cache"
        assert codes(cached(first, cache, "pkg")) == [("pkg/kernels.py", "AIG301")]
        copy = Path(shutil.copytree(first, tmp_path / "second"))
        (copy / "pkg/kernels.py").write_text(KERNELS.replace("x * W", "x * 2"))
        assert cached(copy, cache, "pkg") == uncached(copy, "pkg") == (0, [])

    def test_a_restored_cache_in_a_new_checkout(self, tree: Path, tmp_path: Path) -> None:
        cached(tree, tree / CACHE_DIR_NAME, "pkg")
        copy = Path(shutil.copytree(tree, tmp_path / "second"))  # the cache travels with it
        shutil.rmtree(tree)  # the old checkout is gone
        (copy / "pkg/helpers.py").write_text(FIXED_HELPERS)
        assert cached(copy, copy / CACHE_DIR_NAME, "pkg") == uncached(copy, "pkg") == (0, [])

    def test_the_copy_checked_from_its_parent(self, tree: Path, tmp_path: Path) -> None:
        cache = tmp_path / "cache"
        cached(tree, cache, "pkg")
        copy = Path(shutil.copytree(tree, tmp_path / "second"))
        (copy / "pkg/helpers.py").write_text(FIXED_HELPERS)
        assert cached(tmp_path, cache, "second/pkg") == uncached(tmp_path, "second/pkg") == (0, [])

    def test_entries_hold_no_absolute_path(self, tmp_path: Path) -> None:
        first = write(
            tmp_path / "first",
            {"pyproject.toml": "", "pkg/__init__.py": "", "pkg/kernels.py": KERNELS, "pkg/register.py": REGISTER},
        )
        write(first, {"pkg/helpers.py": HELPERS, "pkg/ops.py": OPS})
        cache = tmp_path / "cache"
        cached(first, cache, "pkg")
        entries = [path.read_text() for path in cache.rglob("*.json")]
        assert entries and not any(str(tmp_path) in text for text in entries)


def _inodes(cache: Path) -> dict[Path, int]:
    """Each entry's inode: an entry written again (renamed into place) gets a new one."""
    return {path: path.stat().st_ino for path in cache.rglob("*.json")}


class TestHits:
    def test_an_unchanged_tree_is_answered_from_the_cache(self, tree: Path, tmp_path: Path) -> None:
        cache = tmp_path / "cache"
        cold = cached(tree, cache, "pkg")
        written = _inodes(cache)
        assert written and cached(tree, cache, "pkg") == cold
        assert _inodes(cache) == written

    def test_an_unchanged_copy_is_answered_from_the_shared_cache(self, tree: Path, tmp_path: Path) -> None:
        cache = tmp_path / "cache"
        cold = cached(tree, cache, "pkg")
        written = _inodes(cache)
        copy = Path(shutil.copytree(tree, tmp_path / "second"))
        assert cached(copy, cache, "pkg") == cold == uncached(copy, "pkg")
        assert _inodes(cache) == written


class TestDependencies:
    def test_a_deleted_and_restored_helper(self, tree: Path, tmp_path: Path) -> None:
        cache = tmp_path / "cache"
        helpers = tree / "pkg/helpers.py"
        assert codes(cached(tree, cache, "pkg")) == [("pkg/ops.py", "AIG301")]
        helpers.unlink()
        assert cached(tree, cache, "pkg") == uncached(tree, "pkg") == (0, [])
        helpers.write_text(HELPERS)
        assert cached(tree, cache, "pkg") == uncached(tree, "pkg")
        assert codes(cached(tree, cache, "pkg")) == [("pkg/ops.py", "AIG301")]

    def test_a_helper_that_appears_after_the_first_run(self, tree: Path, tmp_path: Path) -> None:
        cache = tmp_path / "cache"
        (tree / "pkg/helpers.py").unlink()
        assert cached(tree, cache, "pkg") == (0, [])
        (tree / "pkg/helpers.py").write_text(HELPERS)
        assert codes(cached(tree, cache, "pkg")) == [("pkg/ops.py", "AIG301")]

    def test_a_module_that_becomes_a_package(self, tree: Path, tmp_path: Path) -> None:
        cache = tmp_path / "cache"
        (tree / "pkg/helpers.py").write_text(FIXED_HELPERS)
        assert cached(tree, cache, "pkg") == (0, [])
        (tree / "pkg/helpers.py").unlink()
        write(tree, {"pkg/helpers/__init__.py": HELPERS})
        assert cached(tree, cache, "pkg") == uncached(tree, "pkg")
        assert codes(cached(tree, cache, "pkg")) == [("pkg/ops.py", "AIG301")]

    def test_a_package_that_becomes_a_module(self, tree: Path, tmp_path: Path) -> None:
        cache = tmp_path / "cache"
        (tree / "pkg/helpers.py").unlink()
        write(tree, {"pkg/helpers/__init__.py": HELPERS})
        assert codes(cached(tree, cache, "pkg")) == [("pkg/ops.py", "AIG301")]
        shutil.rmtree(tree / "pkg/helpers")
        (tree / "pkg/helpers.py").write_text(FIXED_HELPERS)
        assert cached(tree, cache, "pkg") == uncached(tree, "pkg") == (0, [])

    def test_an_alias_module_that_starts_to_register(self, tmp_path: Path) -> None:
        # utils.py names no registrar at first (not parsed); the cached ops.py must notice it later does.
        tree = write(
            tmp_path / "tree",
            {
                "pyproject.toml": "",
                "pkg/__init__.py": "",
                "pkg/utils.py": "def register(fn):\n    return fn\n",
                "pkg/ops.py": (
                    "import torch\nfrom .utils import register\n\nW = torch.ones(4)\n\n"
                    "@register\ndef scaled(x):\n    return x * W\n\ntorch.compiler.allow_in_graph(len)\n"
                ),
            },
        )
        cache = tmp_path / "cache"
        assert cached(tree, cache, "pkg") == (0, [])
        (tree / "pkg/utils.py").write_text("from torch.compiler import allow_in_graph as register\n")
        assert cached(tree, cache, "pkg") == uncached(tree, "pkg")
        assert codes(uncached(tree, "pkg")) == [("pkg/ops.py", "AIG301")]


class TestKey:
    def test_changed_settings_are_a_miss(self, tree: Path, tmp_path: Path) -> None:
        cache = tmp_path / "cache"
        (tree / "pyproject.toml").write_text('[tool.aigcheck]\nignore = ["AIG301"]\n')
        argv = ("--cache-dir", str(cache), "pkg")
        run = lambda: codes(aigcheck_configured(tree, *argv))  # noqa: E731
        assert run() == []
        (tree / "pyproject.toml").write_text("[tool.aigcheck]\n")
        assert run() == [("pkg/ops.py", "AIG301")]

    def test_another_checker_version_is_a_miss(
        self, tree: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        from checker.passes import cache as cache_module

        cache = tmp_path / "cache"
        cached(tree, cache, "pkg")
        entries = sorted(cache.rglob("*.json"))
        monkeypatch.setattr(cache_module, "checker_digest", lambda: "another checker")
        cached(tree, cache, "pkg")
        assert len(sorted(cache.rglob("*.json"))) > len(entries)


def aigcheck_configured(cwd: Path, *argv: str) -> tuple[int, list[dict[str, object]]]:
    """As :func:`aigcheck`, reading the configuration."""
    status, out, _ = in_process(cwd, "-q", "-j", "1", "--output-format", "json", *argv)
    return status, json.loads(out or "[]")


def _entries(cache: Path) -> list[Path]:
    return sorted(path for path in cache.rglob("*.json") if not path.name.startswith("."))


CORRUPTIONS = {
    "deeply-nested": lambda entry: entry.write_text("[" * 100_000 + "]" * 100_000),
    "binary": lambda entry: entry.write_bytes(os.urandom(4096)),
    "empty": lambda entry: entry.write_bytes(b""),
    "truncated": lambda entry: entry.write_bytes(entry.read_bytes()[:20]),
    "wrong-shape": lambda entry: entry.write_text('{"findings": {"a": 1}, "dependencies": 7}'),
    "a-list": lambda entry: entry.write_text("[1, 2, 3]"),
    "a-directory": lambda entry: (entry.unlink(), entry.mkdir()),
    "huge": lambda entry: entry.write_bytes(b" " * (MAX_ENTRY_BYTES + 1) + entry.read_bytes()),
}


class TestCorruptEntries:
    @pytest.mark.parametrize("corrupt", CORRUPTIONS.values(), ids=CORRUPTIONS.keys())
    def test_a_corrupt_entry_is_a_miss(self, tree: Path, tmp_path: Path, corrupt) -> None:
        cache = tmp_path / "cache"
        want = uncached(tree, "pkg")
        assert cached(tree, cache, "pkg") == want
        entries = _entries(cache)
        assert entries
        for entry in entries:
            corrupt(entry)
        assert cached(tree, cache, "pkg") == want
        assert cached(tree, cache, "pkg") == want  # and again, after the rewrite

    def test_a_corrupt_entry_is_rewritten(self, tree: Path, tmp_path: Path) -> None:
        cache = tmp_path / "cache"
        cached(tree, cache, "pkg")
        (entry,) = (path for path in _entries(cache) if "ops.py" in path.read_text())
        good = entry.read_text()
        entry.write_bytes(b"\x00garbage")
        cached(tree, cache, "pkg")
        assert entry.read_text() == good

    def test_an_unreadable_cache_directory_costs_only_time(self, tree: Path, tmp_path: Path) -> None:
        cache = tmp_path / "cache"
        cache.write_text("a file where the cache directory should be")
        assert cached(tree, cache, "pkg") == uncached(tree, "pkg")


class TestIgnoredByGit:
    def test_a_new_cache_directory_ignores_itself(self, tree: Path, tmp_path: Path) -> None:
        cache = tmp_path / "cache"
        cached(tree, cache, "pkg")
        assert (cache / ".gitignore").read_text().splitlines()[-1] == "*"

    def test_an_existing_empty_directory_gets_one_too(self, tree: Path, tmp_path: Path) -> None:
        cache = tmp_path / "cache"
        cache.mkdir()
        cached(tree, cache, "pkg")
        assert (cache / ".gitignore").read_text().splitlines()[-1] == "*"


class TestChangesAnywhere:
    """AIG302 depends on every file of the project: any of them may change the state read."""

    STATE = "import torch\n\nSCALE = torch.ones(1).item()\n"
    USER = "import torch\nfrom . import state\n\n@torch.compiler.allow_in_graph\ndef scaled(x):\n    return x * state.SCALE\n"

    def test_a_file_that_starts_to_change_the_state(self, tmp_path: Path) -> None:
        tree = write(
            tmp_path / "tree",
            {"pyproject.toml": "", "pkg/__init__.py": "", "pkg/state.py": self.STATE, "pkg/ops.py": self.USER},
        )
        cache = tmp_path / "cache"
        assert cached(tree, cache, "pkg") == uncached(tree, "pkg")
        write(tree, {"pkg/tune.py": "from . import state\n\ndef tune():\n    state.SCALE = 2.0\n"})
        assert codes(uncached(tree, "pkg")) == [("pkg/ops.py", "AIG302")]
        assert cached(tree, cache, "pkg") == uncached(tree, "pkg")
        written = _inodes(cache)
        assert cached(tree, cache, "pkg") == uncached(tree, "pkg")
        assert _inodes(cache) == written  # and an unchanged project is a hit


@pytest.mark.parametrize(
    ("path", "root"),
    [
        ("/a/b/c.py", "/a"),
        ("/a/b/c.py", "/a/"),
        ("/a/bc.py", "/a/b"),  # a longer name beside the root is outside it
        ("/a/b/../c.py", "/a"),
        ("/x/y.py", "/a/b"),
        ("/a/b", "/a/b"),
        ("/", "/"),
        ("/a//b.py", "/a"),
        ("/a/b.py", "/"),
        ("/a/b/", "/a"),
        ("/a/./b", "/a"),
        ("rel/x.py", "/a"),
    ],
)
def test_an_entry_names_its_dependencies_as_relpath_does(path: str, root: str) -> None:
    """The cut taken for a real path below the root answers as ``os.path.relpath``."""
    assert cache._relative(path, root) == os.path.relpath(path, root)
