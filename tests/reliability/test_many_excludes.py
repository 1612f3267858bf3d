"""Exclude patterns are compiled once, and the compiled set matches exactly as its patterns
do one by one (issue 19): 100,000 ``exclude`` patterns, a configuration the checker
accepts, were each matched against every path (3 minutes for 40 files). The equivalence is
shown over many generated patterns and paths (a metamorphic test: the set against each of
its patterns alone, in both dialects), not by timing; ``benchmarks/`` measures the time."""

from __future__ import annotations

import random
from fnmatch import fnmatchcase
from pathlib import Path

import pytest
from processes import aigcheck, found
from projects import CAPTURING_OPS, write

from checker.configuration.config import Config, matches
from checker.reading.discovery import Source, discover
from checker.reading.globs import Dialect, PatternSet, glob_matches

#: Pieces of patterns: literals (some that mean something elsewhere), every wildcard and
#: the corners of classes: a negation, a range, a leading ``]``, one never closed.
PATTERN_PIECES = [*"ab/.-]!\\", "*", "**", "**/", "?", "[ab]", "[!a]", "[a-b]", "[]a]", "[/]", "["]
PATH_PIECES = [*"ab/.-]![\\", "ab", "a/", "/b"]
SEEDS = range(300)


def pattern(rng: random.Random) -> str:
    return "".join(rng.choice(PATTERN_PIECES) for _ in range(rng.randint(0, 6)))


def path(rng: random.Random) -> str:
    return "".join(rng.choice(PATH_PIECES) for _ in range(rng.randint(0, 8)))


def one_by_one(dialect: Dialect, patterns: list[str], text: str, or_a_parent: bool) -> bool:
    if dialect is Dialect.GLOB:
        return any(glob_matches(each, text, or_a_parent=or_a_parent) for each in patterns)
    assert not or_a_parent
    return any(fnmatchcase(text, each) for each in patterns)


@pytest.mark.parametrize(
    ("dialect", "or_a_parent"),
    [(Dialect.GLOB, False), (Dialect.GLOB, True), (Dialect.FNMATCH, False)],
    ids=["glob", "glob-or-a-parent", "fnmatch"],
)
def test_a_compiled_set_matches_as_its_patterns_do_one_by_one(dialect: Dialect, or_a_parent: bool) -> None:
    compared = matched = 0
    for seed in SEEDS:
        rng = random.Random(seed)
        patterns = [pattern(rng) for _ in range(rng.randint(1, 30))]
        compiled = PatternSet(patterns, dialect)
        for text in [path(rng) for _ in range(60)] + patterns:  # each pattern read as a path too
            expected = one_by_one(dialect, patterns, text, or_a_parent)
            assert compiled.matches(text, or_a_parent=or_a_parent) is expected, (seed, patterns, text)
            compared += 1
            matched += expected
    # Both answers are common, so the comparison says something either way.
    assert 0.2 < matched / compared < 0.8


@pytest.mark.parametrize("dialect", list(Dialect), ids=lambda dialect: dialect.value)
def test_order_duplicates_and_splitting_change_nothing(dialect: Dialect) -> None:
    for seed in SEEDS:
        rng = random.Random(seed)
        patterns = [pattern(rng) for _ in range(rng.randint(1, 20))]
        shuffled = rng.sample(patterns, len(patterns)) + patterns[: len(patterns) // 2]
        cut = rng.randint(0, len(patterns))
        whole, again = PatternSet(patterns, dialect), PatternSet(shuffled, dialect)
        first, second = PatternSet(patterns[:cut], dialect), PatternSet(patterns[cut:], dialect)
        for text in [path(rng) for _ in range(40)]:
            answer = whole.matches(text)
            assert again.matches(text) is answer
            assert (first.matches(text) or second.matches(text)) is answer


def test_the_configuration_excludes_as_each_pattern_does(tmp_path: Path) -> None:
    """``Config.excludes`` against the documented reading of each pattern: one with a ``/``
    is relative to the configuration's folder and excludes what it matches and what is
    under it; ``./`` and slashes at either end change nothing."""
    for seed in SEEDS:
        rng = random.Random(seed)
        exclude = [rng.choice(["", "./", "/"]) + pattern(rng) + rng.choice(["", "/"]) for _ in range(25)]
        config = Config(path=tmp_path / "pyproject.toml", exclude=tuple(exclude))
        for relative in [path(rng).strip("/") or "a" for _ in range(40)]:
            relative = "/".join(part for part in relative.split("/") if part not in ("", ".", ".."))
            if not relative:
                continue
            expected = any(
                matches(each.strip("/"), relative, anchored=True, or_a_parent=True)
                for each in exclude
                if "/" in each.rstrip("/")
            )
            assert config.excludes(str(tmp_path / relative)) is expected, (seed, exclude, relative)


NAME_PIECES = ["a", "b", "c", "_", "-", ".", "x"]


def left_out(shown: str, readings: list[str]) -> bool:
    """Whether a file shown as ``tree/...`` is excluded by the patterns one by one: its
    name, or a folder's, or its path below ``tree`` or as shown (or a folder's) matches."""
    parts = shown.split("/")
    for depth in range(2, len(parts) + 1):
        candidates = (parts[depth - 1], "/".join(parts[1:depth]), "/".join(parts[:depth]))
        if any(fnmatchcase(candidate, each) for each in readings for candidate in candidates):
            return True
    return False


def test_discovery_excludes_as_each_pattern_does(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """What discovery leaves out: a name, or a path below the argument or as shown,
    matching a pattern as ``fnmatchcase`` reads it, or a folder that does."""
    rng = random.Random(19)
    names = {"".join(rng.choice(NAME_PIECES) for _ in range(rng.randint(1, 4))) for _ in range(12)}
    names = {name for name in names if name not in (".", "..")}
    choices = sorted(names)
    files = sorted({"/".join(rng.choice(choices) for _ in range(3)) + ".py" for _ in range(60)})
    write(tmp_path / "tree", dict.fromkeys(files, ""))
    monkeypatch.chdir(tmp_path)
    every = [item.display for item in discover(["tree"]) if isinstance(item, Source)]
    assert len(every) == len(files)
    for seed in SEEDS:
        rng = random.Random(seed)
        exclude = [pattern(rng).replace("\\", "") + rng.choice(["", "/"]) for _ in range(rng.randint(1, 15))]
        kept = [item.display for item in discover(["tree"], exclude) if isinstance(item, Source)]
        readings = [each.rstrip("/") or each for each in exclude]

        assert kept == [shown for shown in every if not left_out(shown, readings)], (seed, exclude)


def test_a_hundred_thousand_patterns_exclude_what_they_name(tmp_path: Path) -> None:
    write(
        tmp_path,
        {f"src/gen/g{i}.py": CAPTURING_OPS for i in range(20)} | {f"keep/k{i}.py": CAPTURING_OPS for i in range(5)},
    )
    patterns = [f"src/gen/g{i}.py" for i in range(0, 20, 2)]  # anchored: half the generated files
    patterns += [f"g{i}.py" for i in range(1, 10, 2)]  # names: five more
    patterns += [f"other_{i}/*.py" for i in range(50_000)] + [f"*_pb{i}.py" for i in range(50_000)]
    patterns += [f"x{i}" for i in range(10_000)]
    (tmp_path / "pyproject.toml").write_text(f"[tool.aigcheck]\nexclude = {patterns!r}\n", encoding="utf-8")
    result = aigcheck(tmp_path, "--output-format", "json", "--exclude", "k3.py", ".")
    left = sorted(path for path, _ in found(result))
    assert left == sorted([f"keep/k{i}.py" for i in (0, 1, 2, 4)] + [f"src/gen/g{i}.py" for i in (11, 13, 15, 17, 19)])
