"""The Markdown section that ``benchmarks/corpus.py`` writes into benchmarks/RESULTS.md."""

from __future__ import annotations

import statistics
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from corpus_measure import Proc, Series
    from corpus_model import Context, Tree

TITLE = "## Checker on real trees"


def replace_section(old: str, section: str, title: str = TITLE) -> str:
    """``old`` with the section ``title`` replaced (or appended); other sections kept as they are."""
    head, found, rest = old.partition(title)
    if not found:
        return old.rstrip() + "\n\n" + section
    tail = rest[rest.find("\n## ") :] if "\n## " in rest else ""
    return head.rstrip() + "\n\n" + section + tail


def seconds(value: float) -> str:
    return f"{value:.2f} s" if value < 10 else f"{value:.1f} s"


def times(value: float) -> str:
    return f"{value:.2f}x" if value < 1 else f"{value:.1f}x"


def spread(series: Series) -> str:
    """Median wall time with the range, CPU time, and peak RSS; or why there is none."""
    if not series.ok:
        return series.problem or "not run"
    walls = [run.wall for run in series.runs]
    text = f"{seconds(series.wall)}"
    if len(walls) > 1:
        text += f" ({min(walls):.2f}-{max(walls):.2f})"
    return f"{text}, CPU {seconds(series.cpu)}, peak RSS {series.rss_mb:.0f} MB"


def once(proc: Proc | None, note: str) -> str:
    if proc is None or not proc.ok:
        return note
    return f"{seconds(proc.wall)}, CPU {seconds(proc.cpu)}, peak RSS {proc.rss_mb:.0f} MB"


def inner(rows: list[dict[str, float]], key: str) -> float | None:
    values = [row[key] for row in rows if key in row]
    return statistics.median(values) if values else None


def torchfix_ratio(proc: Proc | None, aig: Series) -> tuple[str, str]:
    """TorchFix / aigcheck, and whether that meets the 20x budget; a lower bound when TorchFix timed out."""
    if proc is None or not aig.ok or not (proc.ok or proc.timed_out):
        return "not measured", "n/a"
    value = proc.wall / aig.wall
    if proc.timed_out:
        return (
            f">= {times(value)} (TorchFix cut off at {proc.wall:.0f} s)",
            "yes (lower bound)" if value >= 20 else "unknown",
        )
    return times(value), "yes" if value >= 20 else f"no: needs {times(20 / value)} more"


def budget_rows(trees: list[Tree]) -> list[str]:
    """The project's speed budgets that the corpus run measures, each row naming its budget."""
    rows = []
    for tree in trees:
        if tree.label in ("torch", "transformers") and tree.error is None and tree.cold.ok and tree.ruff.ok:
            r = tree.cold.wall / tree.ruff.wall
            verdict = "yes" if r < 1 else f"no: aigcheck must get {times(r)} faster"
            rows.append(
                f"| faster than `ruff check --output-format concise`, {tree.label} | aigcheck cold "
                f"{seconds(tree.cold.wall)} vs ruff {seconds(tree.ruff.wall)}: {times(r)} "
                f"(CPU {times(tree.cold.cpu / tree.ruff.cpu)}) | {verdict} |"
            )
    torch = next((tree for tree in trees if tree.label == "torch" and tree.error is None), None)
    if torch is not None and torch.warm.runs:
        w = torch.warm
        verdict = ("yes" if w.wall < 0.25 else f"no: {times(w.wall / 0.25)} over") if w.ok else "n/a"
        rows.append(f"| warm run, unchanged tree, under 0.25 s, torch | {spread(w)} | {verdict} |")
    if torch is not None and torch.one_file.ok and torch.one_file_path is not None:
        cpu = torch.one_file.cpu
        verdict = "yes" if cpu < 0.3 else f"no: {times(cpu / 0.3)} over"
        rows.append(
            f"| one changed file under 0.3 s of CPU, torch (`{torch.one_file_path.name}`, `--no-cache`) "
            f"| CPU {seconds(cpu)}, wall {seconds(torch.one_file.wall)} | {verdict} |"
        )
    for tree in trees:
        if tree.reg_aig.ok and tree.reg_parse.ok:
            r = tree.reg_aig.wall / tree.reg_parse.wall
            parse = inner(tree.reg_parse_inner, "wall")
            context = f"; parse alone in-process {seconds(parse)}" if parse is not None else ""
            verdict = "yes" if r <= 1.2 else f"no: {times(r / 1.2)} over"
            rows.append(
                f"| registration files within 1.2x of `libcst.parse_module`, {tree.label} ({len(tree.mentioning)} files) "
                f"| aigcheck {seconds(tree.reg_aig.wall)} vs parse {seconds(tree.reg_parse.wall)} "
                f"as processes: {times(r)}{context} | {verdict} |"
            )
    for tree in trees:
        for what, proc, aig in (
            ("whole tree", tree.torchfix, tree.cold),
            ("registration files", tree.torchfix_reg, tree.reg_aig),
        ):
            measured, verdict = torchfix_ratio(proc, aig)
            if verdict != "n/a":
                rows.append(
                    f"| at least 20x faster than TorchFix, {tree.label} {what} | TorchFix/aigcheck {measured} | {verdict} |"
                )
    return rows


def tree_table(tree: Tree, aig_has_cache: bool) -> list[str]:
    lines = [f"### {tree.label} {tree.version}", ""]
    if tree.error is not None or tree.root is None:
        return lines + [f"Not measured: {tree.error}.", ""]
    read_wall, read_cpu = inner(tree.read_inner, "wall"), inner(tree.read_inner, "cpu")
    findings = "?" if tree.findings is None else str(tree.findings)
    rows = [
        ("files / lines / MB", f"{tree.files:,} / {tree.lines:,} / {tree.size / 2**20:.1f}"),
        ("files mentioning `allow_in_graph`", f"{len(tree.mentioning)}"),
        ("aigcheck findings", f"{findings}{f' ({tree.findings_note})' if tree.findings_note else ''}"),
        (
            "read floor, in-process (walk + read every file)",
            f"{seconds(read_wall)}, CPU {seconds(read_cpu)}" if read_wall is not None else tree.read.problem or "?",
        ),
        ("read floor as a process (interpreter start included)", spread(tree.read)),
        ("aigcheck cold (empty cache dir)" if aig_has_cache else "aigcheck cold", spread(tree.cold)),
    ]
    if tree.no_cache.runs:
        rows.append(("aigcheck `--no-cache`", spread(tree.no_cache)))
    rows.append(
        ("aigcheck warm (unchanged tree)", spread(tree.warm) if tree.warm.runs else "no cache yet: same as cold")
    )
    rows.append(("`ruff check --output-format concise` (default rules, no cache)", spread(tree.ruff)))
    if tree.one_file.runs and tree.one_file_path is not None:
        rows.append((f"aigcheck `--no-cache` on one file (`{tree.one_file_path.name}`)", spread(tree.one_file)))
    tf = once(tree.torchfix, tree.torchfix_note)
    if tree.torchfix_findings is not None:
        tf += f", {tree.torchfix_findings} findings"
    rows.append(("TorchFix (once)", tf))
    if tree.cold.ok and read_wall:
        rows.append(
            (
                "aigcheck / read floor",
                f"{times(tree.cold.wall / read_wall)} (vs the process: {times(tree.cold.wall / tree.read.wall)})",
            )
        )
    if tree.cold.ok and tree.ruff.ok:
        rows.append(
            (
                "aigcheck / ruff",
                f"{times(tree.cold.wall / tree.ruff.wall)} wall, {times(tree.cold.cpu / tree.ruff.cpu)} CPU",
            )
        )
    rows.append(("TorchFix / aigcheck", torchfix_ratio(tree.torchfix, tree.cold)[0]))
    if tree.mentioning:
        rows.append(("registration files: aigcheck `--no-cache`", spread(tree.reg_aig)))
        rows.append(("registration files: `libcst.parse_module` as a process", spread(tree.reg_parse)))
        parse, imported = inner(tree.reg_parse_inner, "wall"), inner(tree.reg_parse_inner, "import")
        if parse is not None and imported is not None:
            failed = int(inner(tree.reg_parse_inner, "failed") or 0)
            rows.append(
                (
                    "registration files: parse alone / `import libcst`",
                    f"{seconds(parse)} / {seconds(imported)}, {failed} failed to parse",
                )
            )
        rows.append(("registration files: TorchFix (once)", once(tree.torchfix_reg, tree.torchfix_reg_note)))
        if tree.reg_aig.ok and tree.reg_parse.ok:
            rows.append(("registration files: aigcheck / parse", times(tree.reg_aig.wall / tree.reg_parse.wall)))
        rows.append(("registration files: TorchFix / aigcheck", torchfix_ratio(tree.torchfix_reg, tree.reg_aig)[0]))
    quick = (tree.read, tree.cold, tree.no_cache, tree.warm, tree.ruff, tree.one_file, tree.reg_aig, tree.reg_parse)
    others = [series.other_busy for series in quick if series.runs and series.other_busy is not None]
    if tree.busy_before is not None and others:
        rows.append(
            (
                "other processes on the machine",
                f"{tree.busy_before:.0%} of the CPUs busy just before the quick measurements; "
                f"during them, up to {max(others):.0%} in one run",
            )
        )
    lines += ["| measurement | result |", "|---|---|"]
    lines += [f"| {name} | {value} |" for name, value in rows]
    return lines + [""]


def render(ctx: Context, trees: list[Tree], final: bool) -> str:
    info: dict[str, Any] = ctx.machine
    aig = ctx.aig
    cache = "--cache-dir DIR" if aig.supports("--cache-dir") else "--no-cache" if aig.supports("--no-cache") else ""
    repo = str(Path(__file__).resolve().parent.parent) + "/"
    flags = aig.command([])[len(aig.argv) :] + ([cache] if cache else []) + ["TREE"]
    program = "aigcheck" if ctx.args.rev else " ".join(aig.argv).replace(repo, "")
    example = " ".join([program, *flags])
    out = [
        TITLE,
        "",
        f"`benchmarks/corpus.py`, {info.get('date', '?')}, aigcheck at commit {info.get('commit', '?')}."
        + ("" if final else " **Partial: written before the TorchFix runs finished.**"),
        "Quick measurements are medians of "
        f"{ctx.args.repeats} runs, interleaved per tree (read floor, aigcheck, ruff), with the page cache warm "
        "(one untimed read first); a run during which other processes used over 15% of the CPUs is "
        f"taken again (up to {ctx.args.retries} times, keeping the quietest); ranges are min-max wall. Wall is elapsed time; CPU is user + system time of "
        "the process and its reaped workers (from `wait4`); peak RSS is the largest of those processes. "
        "TorchFix runs once per tree, in its own venv, capped at "
        f"{ctx.args.torchfix_timeout:.0f} s; in `auto` mode it runs on the smallest tree first and skips a larger "
        "tree (except torch, the budget's reference tree) once a smaller one did not finish.",
        "",
        "### Machine and commands",
        "",
        "| | |",
        "|---|---|",
        f"| CPU | {info.get('cpu', '?')}, {info.get('cpus', '?')} cores |",
        f"| memory, OS | {info.get('memory', '?')}, {info.get('os', '?')} |",
        f"| Python, torch, libcst | {info.get('python', '?')}, {info.get('torch', '?')}, {info.get('libcst', '?')} |",
        f"| ruff | {info.get('ruff', '?')} |",
        f"| aigcheck | {info.get('aigcheck', '?')}: `{example}` |",
        f"| TorchFix | {info.get('torchfix', 'not installed' if final else 'pending')} (own venv, libcst {info.get('torchfix libcst', '?')}): "
        "`torchfix TREE` (default rules, one job per core) |",
        "| ruff command | `ruff check --isolated --no-cache --exit-zero --output-format concise TREE` |",
        "| read floor | `os.walk` plus reading every `*.py` file's bytes once, in a fresh interpreter |",
        "| parse floor | `libcst.parse_module` of every registration file's bytes, in a fresh interpreter |",
        "",
    ]
    if aig.has_cache:
        out.append(
            "aigcheck cold: a fresh, empty `--cache-dir` each run (so it includes writing the cache); "
            "warm: the cache the first cold run filled, same tree unchanged."
        )
    else:
        out.append(
            "aigcheck has no cache yet (no `--cache-dir` or `--no-cache` in its `--help`): warm is the same as cold."
        )
    out += [f"Note: {note}" for note in ctx.notes]
    disturbed = sorted(
        (series.other_busy, tree.label)
        for tree in trees
        for series in (tree.read, tree.cold, tree.no_cache, tree.warm, tree.ruff, tree.reg_aig, tree.reg_parse)
        if series.runs and series.other_busy is not None and series.other_busy > 0.15
    )
    if disturbed:
        labels = ", ".join(sorted({label for _, label in disturbed}))
        out.append(
            f"**Noise:** other processes used up to {disturbed[-1][0]:.0%} of the CPUs during some kept runs "
            f"({labels}); those times are inflated (see each tree's last row)."
        )
    out += ["", "### Budgets", "", "| budget | measured | met |", "|---|---|---|"]
    out += budget_rows(trees) or ["| (nothing measured) | | |"]
    out.append("")
    for tree in trees:
        out += tree_table(tree, aig.has_cache)
    return "\n".join(out).rstrip() + "\n"
