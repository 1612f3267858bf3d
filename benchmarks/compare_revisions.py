"""Two revisions of the checker on one tree, measured in the same run.

    .venv/bin/python benchmarks/compare_revisions.py BEFORE AFTER [--tree DIR] [--repeats N]
        [--out benchmarks/RESULTS.md]

Each revision runs from a snapshot of its ``checker`` package (``git archive``, byte
compiled), cold (``--no-cache``), on the same tree (default: the installed torch
package), and the runs alternate, so that load from other processes falls on both
alike. The medians of wall and CPU seconds and their ratios go into a section of
RESULTS.md; the findings of both must be the same, or the comparison says so.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import statistics
import sys
import tempfile
from pathlib import Path

try:
    from . import corpus_measure as m
    from .corpus_report import replace_section
except ImportError:  # run as a script
    import corpus_measure as m  # type: ignore[no-redef]
    from corpus_report import replace_section  # type: ignore[no-redef]

REPO = Path(__file__).resolve().parent.parent
TITLE = "## Revisions compared"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before")
    parser.add_argument("after")
    parser.add_argument("--tree", type=Path, help="the tree to check (default: the installed torch package)")
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--jobs", type=int, help="pass --jobs N (default: the checker's own choice, every core)")
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("--out", type=Path, help="write the section into this Markdown file")
    args = parser.parse_args(argv)
    tree = args.tree or _torch_package()
    with tempfile.TemporaryDirectory(prefix="aig-revisions-") as work:
        workdir = Path(work)
        commands = {}
        for rev in (args.before, args.after):
            command, what = m.snapshot(args.python, REPO, rev, workdir)
            if command is None:
                print(f"compare_revisions: {what}", file=sys.stderr)
                return 2
            jobs = ["--jobs", str(args.jobs)] if args.jobs else []
            commands[what] = [
                *command,
                "--no-cache",
                "--isolated",
                "-q",
                "--exit-zero",
                "--output-format",
                "json",
                *jobs,
            ]
        series: dict[str, list[m.Proc]] = {what: [] for what in commands}
        for _ in range(args.repeats):
            for what, command in commands.items():
                proc = m.run_child([*command, tree.name], cwd=tree.parent)
                if not proc.ok:
                    print(f"compare_revisions: {what}: {proc.problem}", file=sys.stderr)
                    return 2
                series[what].append(proc)
    section = _section(tree, series, args.repeats, args.jobs)
    print(section)
    if args.out is not None:
        old = args.out.read_text(encoding="utf-8") if args.out.exists() else ""
        args.out.write_text(replace_section(old, section, TITLE), encoding="utf-8")
    return 0


def _torch_package() -> Path:
    spec = importlib.util.find_spec("torch")
    if spec is None or spec.origin is None:
        raise SystemExit("compare_revisions: torch is not installed; give --tree")
    return Path(spec.origin).parent


def _section(tree: Path, series: dict[str, list[m.Proc]], repeats: int, jobs: int | None) -> str:
    (before, first), (after, second) = series.items()
    same = {json.dumps(json.loads(proc.stdout), sort_keys=True) for proc in first + second}
    wall = [statistics.median(proc.wall for proc in runs) for runs in (first, second)]
    cpu = [statistics.median(proc.cpu for proc in runs) for runs in (first, second)]
    busy = max((proc.other_busy or 0.0 for proc in first + second), default=0.0)
    lines = [
        TITLE,
        "",
        f"`benchmarks/compare_revisions.py {before} {after}{f' --jobs {jobs}' if jobs else ''}`: the cold "
        "run (`--no-cache`) on "
        f"`{tree}`, {repeats} runs of each, alternating; medians. Other processes used up to "
        f"{busy:.0%} of the CPUs during a run.",
        "",
        "| revision | wall s | CPU s |",
        "|---|---|---|",
        f"| {before} | {wall[0]:.2f} | {cpu[0]:.2f} |",
        f"| {after} | {wall[1]:.2f} | {cpu[1]:.2f} |",
        f"| ratio after/before | {wall[1] / wall[0]:.2f} | {cpu[1] / cpu[0]:.2f} |",
        "",
        "Findings: " + ("identical." if len(same) == 1 else "DIFFERENT between the revisions."),
        "",
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
