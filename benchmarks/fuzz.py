"""Fuzzing and corruption: no input kills, stalls or misleads the checker (issue 12).

    .venv/bin/python benchmarks/fuzz.py [--mutants 2000] [--rounds 200] [--seed 0] [--out benchmarks/RESULTS.md]

Two campaigns, each run through the command line (``python -m checker``) in a fresh
process per batch, so that a crash anywhere shows as the process's exit status:

- mutants: the fixtures and the registration files of the installed torch, mutated
  (lines deleted, duplicated, swapped or truncated; bytes flipped; tokens, form feeds,
  tabs, carriage returns, NUL bytes, deep nesting and long operator chains inserted).
  Counted: inputs tried, crashes (the run died, or reported an internal error), hangs
  (a batch outlived its timeout, or a file overran the per-file budget), and valid
  Python (CPython compiles it) that got AIG900 for a reason other than a budget.
- corruption: a three-module project changed at random (a dependency edited, deleted,
  restored, turned into a package; the tree copied elsewhere; the configuration
  changed; cache entries truncated, filled with garbage or with JSON nested 100,000
  deep) and checked with the cache after each change. Counted: rounds, errors (exit 2),
  and stale results (the cached run's JSON differs from ``--no-cache``'s).

Every count but "tried" should be 0. Writes the "Fuzzing and corruption" section of
RESULTS.md and keeps the others.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from corpus_report import replace_section  # noqa: E402 - the benchmarks folder is not a package

REPO = Path(__file__).resolve().parents[1]
BATCH = 100
#: The share of corruption steps that damage a cache entry (the rest change the tree).
CORRUPT_SHARE = 0.3
#: A batch of BATCH files that takes longer than this hangs.
BATCH_TIMEOUT = 600


def seeds() -> list[bytes]:
    """The fixtures, and torch's files that mention allow_in_graph."""
    found = [path.read_bytes() for path in sorted((REPO / "fixtures").rglob("*.py"))]
    try:
        import torch

        root = Path(torch.__file__).parent
        found += [path.read_bytes() for path in sorted(root.rglob("*.py")) if b"allow_in_graph" in path.read_bytes()]
    except ImportError:
        pass
    return found


def _insertions(rng: random.Random) -> str:
    depth = rng.choice([50, 150, 250, 3000])
    chain = rng.choice([" and ", " or ", " + ", " | ", " < ", " "])
    operand = "'s'" if chain == " " else "a"
    return rng.choice(
        [
            "\f",
            "\t",
            "\r",
            "\0",
            "\\\n",
            "(" * depth + "x" + ")" * depth,
            "[" * depth + "]" * depth,
            "x = " + chain.join([operand] * rng.choice([100, 3000, 8000])) + "\n",
            "@torch.compiler.allow_in_graph\n",
            "torch.compiler.allow_in_graph(",
            "lambda: ",
            "yield ",
            "global W\n",
            "\ufeff",
            "é",
            "\x7f",
            "'''",
            "f'{",
            "async ",
            "    ",
        ]
    )


def mutate(data: bytes, rng: random.Random) -> bytes:
    """One to three random edits of ``data``."""
    for _ in range(rng.randint(1, 3)):
        lines = data.split(b"\n")
        kind = rng.randrange(6)
        at = rng.randrange(max(len(lines), 1))
        if kind == 0 and len(lines) > 1:
            del lines[at]
        elif kind == 1:
            lines.insert(at, lines[at] if lines else b"")
        elif kind == 2 and len(lines) > 1:
            other = rng.randrange(len(lines))
            lines[at], lines[other] = lines[other], lines[at]
        elif kind == 3:
            line = lines[at] if lines else b""
            cut = rng.randint(0, len(line))
            lines[at] = line[:cut] + _insertions(rng).encode("utf-8", "surrogatepass") + line[cut:]
        elif kind == 4 and data:
            flipped = bytearray(data)
            flipped[rng.randrange(len(flipped))] = rng.randrange(256)
            return bytes(flipped)
        else:
            return data[: rng.randint(0, len(data))]
        data = b"\n".join(lines)
    return data


@dataclass
class Counts:
    tried: int = 0
    crashes: int = 0
    hangs: int = 0
    valid_refused: int = 0
    notes: list[str] = field(default_factory=list)


def _compiles(data: bytes) -> bool:
    try:
        compile(data, "<mutant>", "exec", dont_inherit=True)
    except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError):
        return False
    return True


def _run(args: list[str], cwd: Path, timeout: float) -> subprocess.CompletedProcess[str] | None:
    try:
        return subprocess.run(
            [sys.executable, "-m", "checker", *args],
            cwd=cwd,
            env={**os.environ, "PYTHONPATH": str(REPO)},
            capture_output=True,
            text=True,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired:
        return None


def fuzz_mutants(count: int, rng: random.Random) -> Counts:
    corpus = seeds()
    counts = Counts()
    with tempfile.TemporaryDirectory(prefix="aigcheck-fuzz-") as folder:
        for start in range(0, count, BATCH):
            batch = Path(folder) / f"batch{start}"
            batch.mkdir()
            written = {}
            for number in range(start, min(start + BATCH, count)):
                data = mutate(rng.choice(corpus), rng)
                name = f"m{number}.py"
                (batch / name).write_bytes(data)
                written[name] = data
            counts.tried += len(written)
            done = _run(
                ["--isolated", "--no-cache", "--output-format", "json", "--exit-zero", "."], batch, BATCH_TIMEOUT
            )
            if done is None:
                counts.hangs += 1
                counts.notes.append(f"batch {start}: no answer within {BATCH_TIMEOUT} s")
                continue
            if done.returncode != 0 or "internal error" in done.stderr:
                counts.crashes += 1
                counts.notes.append(f"batch {start}: exit {done.returncode}: {done.stderr.strip()[-300:]}")
                continue
            for finding in json.loads(done.stdout):
                if finding["code"] != "AIG900":
                    continue
                message = finding["message"]
                if "budget" in message:
                    counts.hangs += 1
                    counts.notes.append(f"{finding['path']}: {message}")
                elif "crashed" in message:
                    counts.crashes += 1
                    counts.notes.append(f"{finding['path']}: {message}")
                elif _compiles(written[Path(finding["path"]).name]) and "larger than" not in message:
                    counts.valid_refused += 1
                    counts.notes.append(f"{finding['path']}: {message}")
            shutil.rmtree(batch)
    return counts


# The corruption campaign: a project whose AIG301 depends on a helper module.
_OPS = "import torch\nfrom .helpers import scale\n\n@torch.compiler.allow_in_graph\ndef f(x):\n    return scale(x)\n"
_HELPER_CAPTURES = "import torch\nW = torch.ones(2)\n\ndef scale(x):\n    return x * W\n"
_HELPER_CLEAN = "import torch\n\ndef scale(x):\n    return x * 2\n"


@dataclass
class Corruption:
    rounds: int = 0
    errors: int = 0
    stale: int = 0
    notes: list[str] = field(default_factory=list)


def _answer(tree: Path, cache: Path | None) -> tuple[int, str]:
    caching = ["--cache-dir", str(cache)] if cache is not None else ["--no-cache"]
    done = _run(["--output-format", "json", *caching, "."], tree, 120)
    if done is None:
        return -1, "timeout"
    return done.returncode, done.stdout


def _corrupt_cache(cache: Path, rng: random.Random) -> str:
    entries = [path for path in cache.rglob("*.json") if path.is_file()] if cache.exists() else []
    if not entries:
        return "no entry to corrupt"
    entry = rng.choice(entries)
    how = rng.choice(["truncate", "garbage", "deep", "empty", "directory"])
    if how == "truncate":
        entry.write_bytes(entry.read_bytes()[: rng.randint(0, max(entry.stat().st_size - 1, 0))])
    elif how == "garbage":
        entry.write_bytes(bytes(rng.randrange(256) for _ in range(200)))
    elif how == "deep":
        entry.write_text("[" * 100_000 + "]" * 100_000)
    elif how == "empty":
        entry.write_bytes(b"")
    else:
        entry.unlink()
        entry.mkdir()
    return f"cache entry {how}"


def _change_tree(tree: Path, rng: random.Random) -> tuple[Path, str]:
    pkg = tree / "pkg"
    helper, package = pkg / "helpers.py", pkg / "helpers"
    how = rng.choice(["edit", "delete", "restore", "package", "module", "copy", "config", "touch"])
    if how == "edit" and helper.exists():
        helper.write_text(rng.choice([_HELPER_CAPTURES, _HELPER_CLEAN]))
    elif how == "delete" and helper.exists():
        helper.unlink()
    elif how == "restore" and not helper.exists() and not package.exists():
        helper.write_text(rng.choice([_HELPER_CAPTURES, _HELPER_CLEAN]))
    elif how == "package" and helper.exists():
        package.mkdir()
        helper.rename(package / "__init__.py")
    elif how == "module" and package.exists():
        (package / "__init__.py").rename(helper)
        shutil.rmtree(package)
    elif how == "copy":
        copy = tree.parent / f"copy{rng.randrange(10**9)}"
        shutil.copytree(tree, copy, ignore=shutil.ignore_patterns(".aigcheck_cache"))
        shutil.rmtree(tree)
        return copy, how
    elif how == "config":
        rule = rng.choice(["", 'ignore = ["AIG301"]\n', 'select = ["AIG3"]\n'])
        (tree / "pyproject.toml").write_text(f"[tool.aigcheck]\n{rule}")
    else:
        (pkg / "ops.py").write_text(_OPS + rng.choice(["", "# touched\n"]))
    return tree, how


def fuzz_corruption(rounds: int, rng: random.Random) -> Corruption:
    counts = Corruption()
    with tempfile.TemporaryDirectory(prefix="aigcheck-corrupt-") as folder:
        tree = Path(folder) / "project"
        (tree / "pkg").mkdir(parents=True)
        (tree / "pkg" / "__init__.py").write_text("")
        (tree / "pkg" / "ops.py").write_text(_OPS)
        (tree / "pkg" / "helpers.py").write_text(_HELPER_CAPTURES)
        (tree / "pyproject.toml").write_text("[tool.aigcheck]\n")
        cache = Path(folder) / "shared-cache"  # outside the tree: copies share it, as a restored CI cache does
        for number in range(rounds):
            if rng.random() < CORRUPT_SHARE:
                what = _corrupt_cache(cache, rng)
            else:
                tree, what = _change_tree(tree, rng)
            counts.rounds += 1
            cached = _answer(tree, cache)
            fresh = _answer(tree, None)
            if cached[0] not in (0, 1) or fresh[0] not in (0, 1):
                counts.errors += 1
                counts.notes.append(f"round {number} ({what}): exit {cached[0]} / {fresh[0]}")
            elif cached != fresh:
                counts.stale += 1
                counts.notes.append(f"round {number} ({what}): cached {cached[1][:200]} != fresh {fresh[1][:200]}")
    return counts


def report(mutants: Counts, corruption: Corruption, seconds: float, seed: int) -> str:
    lines = [
        "## Fuzzing and corruption",
        "",
        f"`benchmarks/fuzz.py --seed {seed}`, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, "
        f"{seconds:.0f} s in all. Every run is `python -m checker` in a fresh process, at commit {_commit()}. "
        f"Mutants: {-(-mutants.tried // BATCH)} batches of {BATCH} files, each batch one run; corruption: "
        f"{corruption.rounds} random steps ({CORRUPT_SHARE:.0%} corrupt a cache entry: truncated, garbage, "
        f"100,000-deep JSON, empty, a folder; {1 - CORRUPT_SHARE:.0%} change the tree: a helper edited, deleted, restored, turned into a package and "
        "back, the tree copied elsewhere with the shared cache, the settings changed, a file touched), each "
        "step checked with the shared cache and with `--no-cache`.",
        "",
        "| campaign | tried | crashes | hangs | valid Python refused | errors | stale results |",
        "|---|---|---|---|---|---|---|",
        f"| mutants of the fixtures and torch's registration files | {mutants.tried} | {mutants.crashes} | "
        f"{mutants.hangs} | {mutants.valid_refused} | | |",
        f"| random changes to a project, and to its cache, checked with the cache | {corruption.rounds} | | | | "
        f"{corruption.errors} | {corruption.stale} |",
        "",
    ]
    notes = mutants.notes + corruption.notes
    if notes:
        lines += ["What did not hold:", ""] + [f"- {note}" for note in notes[:30]] + [""]
    return "\n".join(lines)


def _commit() -> str:
    """The checked-out commit, marked when the working tree differs from it."""

    def git(*args: str) -> str:
        return subprocess.run(["git", *args], cwd=REPO, capture_output=True, text=True, check=False).stdout.strip()

    commit = git("rev-parse", "--short", "HEAD") or "unknown"
    return f"{commit} with local changes" if git("status", "--porcelain", "--untracked-files=no") else commit


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mutants", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default=str(REPO / "benchmarks" / "RESULTS.md"), help="empty: print only")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    started = time.monotonic()
    mutants = fuzz_mutants(args.mutants, rng)
    print(f"mutants: {mutants}", file=sys.stderr, flush=True)
    corruption = fuzz_corruption(args.rounds, rng)
    section = report(mutants, corruption, time.monotonic() - started, args.seed)
    print(section)
    if args.out:
        out = Path(args.out)
        out.write_text(replace_section(out.read_text(encoding="utf-8"), section, "## Fuzzing and corruption"))
    return 0 if not (mutants.crashes or mutants.hangs or corruption.errors or corruption.stale) else 1


if __name__ == "__main__":
    sys.exit(main())
