"""Linear growth: cold time and memory as the tree and a file grow (issue 19).

    .venv/bin/python benchmarks/scaling.py [--sizes 5000,20000,50000] [--json FILE] [--checker DIR]
    .venv/bin/python benchmarks/scaling.py --render BEFORE.json AFTER.json [--out benchmarks/RESULTS.md]

Generates, in the system's temporary folder (never in the repository), one tree per size
(``pathological.project_tree``: packages of 100 modules, one module in 20 registering a
function that reads names of the module before it, one in 20 calling such a function),
a file of 10,000 registered one-line defs, a 2 MB data literal with one registration,
and a tree of 5,000 files whose configuration has 100,000 ``exclude`` patterns matching
none of them. Each is checked once, cold: ``aigcheck --no-cache --exit-zero --output-format
json`` (``--isolated`` but for the excludes), all cores. Recorded: wall and CPU seconds
(the process and its reaped workers), the peak of the summed RSS of all the checker's
processes (sampled every 50 ms), the largest single process's peak RSS, and the findings
against those the generator wrote. ``--checker DIR`` runs the ``checker`` package in DIR
instead (an older revision: ``git archive REV checker | tar -x -C DIR``); the rows go to
``--json``. ``--render`` writes the "Linear growth" section of RESULTS.md from a run before
and one after. The 50,000-file tree takes minutes on 2 cores: run it once per version.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import asdict, dataclass
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import corpus_measure as m  # noqa: E402 - the benchmarks folder is not a package
import pathological  # noqa: E402
from corpus_report import replace_section  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
TITLE = "## Linear growth"
EXCLUDES = 100_000


@dataclass
class Row:
    """One measured input."""

    name: str
    files: int
    expected: int
    findings: int | None
    #: Findings per code, as ``1,000 AIG301`` (a file refused shows AIG900).
    codes: str
    wall: float
    cpu: float
    group_rss_mb: float = 0.0
    rss_mb: float = 0.0
    problem: str | None = None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="5000,20000,50000")
    parser.add_argument("--inputs", default="trees,defs,literal,excludes", help="which of the four kinds to run")
    parser.add_argument("--json", type=Path, help="write the rows here")
    parser.add_argument("--checker", type=Path, help="a folder holding the checker package to run")
    parser.add_argument("--label", help="what the checker run is, for the table (its commit)")
    parser.add_argument("--timeout", type=float, default=1800)
    parser.add_argument("--workdir", type=Path, default=Path(tempfile.gettempdir()) / "aigcheck-scaling")
    parser.add_argument("--render", nargs=2, type=Path, metavar=("BEFORE", "AFTER"))
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "RESULTS.md")
    args = parser.parse_args(argv)
    if args.render:
        return _render(*args.render, args.out)
    inputs = set(args.inputs.split(","))
    env = {"PYTHONPATH": str(args.checker.resolve())} if args.checker else {}
    rows = []
    cases: list[tuple[str, Callable[[], tuple[Path, int, int, bool]]]] = []
    if "trees" in inputs:
        cases += [(f"{int(n):,} files", partial(_tree, args.workdir, int(n))) for n in args.sizes.split(",")]
    if "defs" in inputs:
        cases.append(("10,000 registered one-line defs", partial(_one_file, args.workdir, "defs", _defs)))
    if "literal" in inputs:
        cases.append(("2 MB data literal", partial(_one_file, args.workdir, "literal", _literal)))
    if "excludes" in inputs:
        cases.append((f"5,000 files, {EXCLUDES:,} exclude patterns", partial(_excluding, args.workdir)))
    for name, make in cases:
        folder, files, expected, isolated = make()  # made when its turn comes, removed after
        m.log(f"{name}: checking")
        command = [sys.executable, "-m", "checker", "--no-cache", "--exit-zero", "--output-format", "json"]
        command += ["--isolated"] if isolated else []
        proc = m.run_child([*command, "."], cwd=folder, timeout=args.timeout, group_rss=True, env=env)
        found = Counter(finding["code"] for finding in json.loads(proc.stdout)) if proc.ok else Counter()
        codes = ", ".join(f"{count:,} {code}" for code, count in sorted(found.items()))
        row = Row(name, files, expected, sum(found.values()) if proc.ok else None, codes, proc.wall, proc.cpu)
        row.group_rss_mb, row.rss_mb, row.problem = proc.group_rss_mb, proc.rss_mb, proc.problem
        rows.append(row)
        m.log(f"{name}: {proc.wall:.1f} s, CPU {proc.cpu:.1f} s, {proc.group_rss_mb:.0f} MB, {codes or proc.problem}")
        shutil.rmtree(folder, ignore_errors=True)
        if args.json:  # after each input: a long run stopped halfway keeps what it measured
            _save(args.json, _meta(args.checker, args.label), [row])
    for row in rows:
        print(row)
    return 0


def _save(path: Path, meta: dict[str, str], rows: list[Row]) -> None:
    """Write the rows to ``path``, in place of the rows of the same inputs it holds."""
    kept = json.loads(path.read_text())["rows"] if path.exists() else []
    names = {row.name for row in rows}
    merged = [row for row in kept if row["name"] not in names] + [asdict(row) for row in rows]
    path.write_text(json.dumps({"meta": meta, "rows": merged}, indent=1))


def _tree(workdir: Path, files: int, name: str = "tree") -> tuple[Path, int, int, bool]:
    folder = workdir / f"{name}-{files}"
    shutil.rmtree(folder, ignore_errors=True)
    expected = pathological.project_tree(folder, files)
    return folder, files + files // pathological.PER_PACKAGE + 1, expected, True


def _defs() -> str:
    return pathological.decorated_registrations(10_000)


def _literal() -> str:
    return pathological.data_literal(2_000_000)


def _one_file(workdir: Path, name: str, make: Callable[[], str]) -> tuple[Path, int, int, bool]:
    folder = workdir / name
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    text = make()
    (folder / f"{name}.py").write_text(text, encoding="utf-8")
    return folder, 1, pathological.expected_findings(text), True


def _excluding(workdir: Path) -> tuple[Path, int, int, bool]:
    folder, files, expected, _ = _tree(workdir, 5_000, "excluding")
    patterns = ", ".join(f'"nothing-{i}/*.py"' if i % 2 else f'"nothing_{i}"' for i in range(EXCLUDES))
    (folder / "pyproject.toml").write_text(f"[tool.aigcheck]\nexclude = [{patterns}]\n", encoding="utf-8")
    return folder, files, expected, False


def _meta(checker: Path | None, label: str | None) -> dict[str, str]:
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    where = f"the checker in {checker}" if checker else f"the working tree at {commit.stdout.strip()}"
    return {
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "checker": label or where,
        "machine": f"{platform.machine()}, {len(os.sched_getaffinity(0))} CPUs, Python {platform.python_version()}",
    }


def _render(before_path: Path, after_path: Path, out: Path) -> int:
    before, after = (json.loads(path.read_text()) for path in (before_path, after_path))
    old = {row["name"]: row for row in before["rows"]}
    lines = [
        TITLE,
        "",
        f"`benchmarks/scaling.py`, {after['meta']['date']}, {after['meta']['machine']}; before: "
        f"{before['meta']['checker']} ({before['meta']['date']}); after: {after['meta']['checker']}. One cold run "
        "per input (`--no-cache`, all cores), each tree generated in /tmp by `pathological.project_tree` (5% of "
        "the modules register a function, 5% call one). Memory is the peak of the summed RSS of the checker's "
        "processes (main, forker, workers; sampled every 50 ms), then the largest single process's.",
        "",
        "| input | files | findings (expected) | before: wall, CPU | before: memory (sum, largest) "
        "| after: wall, CPU | after: memory (sum, largest) | after: CPU per 1,000 files |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for row in after["rows"]:
        was = old.get(row["name"])
        lines.append(
            f"| {row['name']} | {row['files']:,} | {_found(row, was)} | {_time(was)} | {_memory(was)} | {_time(row)} "
            f"| {_memory(row)} | {_per_thousand(row)} |"
        )
    lines.append("")
    section = "\n".join(lines)
    text = out.read_text(encoding="utf-8") if out.exists() else "# Benchmark results\n"
    out.write_text(replace_section(text, section, TITLE), encoding="utf-8")
    print(section)
    return 0


def _per_thousand(row: dict[str, float]) -> str:
    return f"{row['cpu'] / row['files'] * 1000:.2f} s" if row["files"] > 1 else ""


def _found(row: dict[str, object], was: dict[str, object] | None) -> str:
    """The findings after (and the expected count), and those before where they differ."""
    found = f"{row['codes']} ({row['expected']:,})" if row["findings"] is not None else str(row["problem"])
    if was is not None and was["findings"] is not None and was["codes"] != row["codes"]:
        found += f"; before: {was['codes']}"
    return found


def _time(row: dict[str, float] | None) -> str:
    if row is None:
        return "not run"
    if row.get("problem"):
        return f"stopped after {row['wall']:.0f} s"
    return f"{row['wall']:.1f} s, {row['cpu']:.1f} s"


def _memory(row: dict[str, float] | None) -> str:
    if row is None or row.get("problem"):
        return ""
    largest = f"{row['rss_mb']:.0f} MB" if row["rss_mb"] else "not recorded"
    return f"{row['group_rss_mb']:.0f} MB, {largest}"


if __name__ == "__main__":
    sys.exit(main())
