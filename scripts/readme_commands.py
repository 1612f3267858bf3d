"""Runs the README's command blocks as written, in a checkout, and says which passed.

Usage:
  python scripts/readme_commands.py                    # in a fresh clone of this repository's HEAD
  python scripts/readme_commands.py --checkout .       # in this working tree
  python scripts/readme_commands.py --fast             # leave out the blocks marked slow
  python scripts/readme_commands.py --list             # what would run, and what is skipped

Every ```sh, ```bash and ```console block is a command block (in a console block, the
lines after a ``$ `` prompt); a ```python block is one only when marked ``run``. A marker
is an HTML comment on the line before the block (blank lines may come between):

  <!-- readme-commands: skip (why it cannot run here) -->    listed as skipped, with the reason
  <!-- readme-commands: slow (why it takes minutes) -->      run, unless --fast
  <!-- readme-commands: exit 0 1 (why 1 is expected) -->     the exit statuses each line may end with
  <!-- readme-commands: run -->                              a python block that runs (with --python)

Words combine (``run slow (compiles with Inductor)``); skip and slow need a reason. A shell
block runs as one ``sh`` script in the checkout, so a ``cd`` or an activated environment
carries to its next lines, and each line's exit status is checked (0 unless marked). The
checkout's ``.venv/bin`` (made by ``make demo``) comes first on PATH, as if activated. The
run stops at the first block that fails, with its output. Exit status: 0 when every block
that ran passed, 1 when one failed, 2 on a usage error.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHELLS = frozenset({"sh", "bash", "console", "shell"})
_FENCE = re.compile(r"^(?P<fence>```+)(?P<lang>[\w+-]*)\s*$")
_MARKER = re.compile(r"^<!--\s*readme-commands:\s*(?P<words>[^()]*?)\s*(?:\((?P<reason>[^)]*)\))?\s*-->\s*$")
_WORDS = frozenset({"skip", "slow", "run", "exit"})


class MarkerError(ValueError):
    """A marker that names an unknown word or lacks its reason."""


@dataclass(frozen=True)
class Block:
    """One fenced block of the README and what its marker says of it."""

    line: int  #: 1-based line of the opening fence
    lang: str
    text: str
    skip: bool = False
    slow: bool = False
    run: bool = False
    reason: str = ""
    exit_statuses: frozenset[int] = field(default=frozenset({0}))

    @property
    def is_command(self) -> bool:
        return self.lang in SHELLS or (self.lang == "python" and (self.run or self.skip))

    def commands(self) -> list[str]:
        """The block's shell lines: comments and blanks dropped, continuations joined, prompts removed."""
        lines = self.text.splitlines()
        if self.lang == "console":
            lines = [line[2:] for line in lines if line.startswith("$ ")]
        joined: list[str] = []
        for line in lines:
            if joined and joined[-1].endswith("\\"):
                joined[-1] = joined[-1][:-1] + line.strip()
            elif line.strip() and not line.lstrip().startswith("#"):
                joined.append(line.rstrip())
        return joined


def _marker(line: str, number: int) -> dict[str, object] | None:
    found = _MARKER.match(line.strip())
    if found is None:
        return None
    words = found["words"].split()
    unknown = [w for w in words if w not in _WORDS and not w.isdigit()]
    if unknown or not words:
        raise MarkerError(f"README.md:{number}: unknown readme-commands word {unknown or words}; use {sorted(_WORDS)}")
    reason = (found["reason"] or "").strip()
    if ("skip" in words or "slow" in words) and not reason:
        raise MarkerError(f"README.md:{number}: 'skip' and 'slow' need a reason in parentheses")
    statuses = frozenset(int(w) for w in words if w.isdigit())
    if statuses and "exit" not in words:
        raise MarkerError(f"README.md:{number}: exit statuses come after 'exit' (exit 0 1)")
    return {
        "skip": "skip" in words,
        "slow": "slow" in words,
        "run": "run" in words,
        "reason": reason,
        "exit_statuses": statuses or frozenset({0}),
    }


def blocks(readme: str) -> list[Block]:
    """Every fenced block of ``readme``, with the marker that precedes it, if any."""
    found: list[Block] = []
    lines = readme.splitlines()
    marker: dict[str, object] | None = None
    index = 0
    while index < len(lines):
        line = lines[index]
        fence = _FENCE.match(line)
        if fence is None:
            if line.strip():
                marker = _marker(line, index + 1)
            index += 1
            continue
        end = index + 1
        while end < len(lines) and lines[end].strip() != fence["fence"]:
            end += 1
        text = "\n".join(lines[index + 1 : end]) + "\n"
        found.append(Block(index + 1, fence["lang"], text, **(marker or {})))  # type: ignore[arg-type]
        marker = None
        index = end + 1
    return found


def command_blocks(readme: str) -> list[Block]:
    return [block for block in blocks(readme) if block.is_command]


@dataclass(frozen=True)
class Outcome:
    block: Block
    status: str  #: "passed", "failed" or "skipped"
    detail: str = ""
    seconds: float = 0.0


def shell_script(block: Block) -> str:
    """The block as one sh script that stops at the first line whose status is not expected."""
    allowed = " ".join(str(s) for s in sorted(block.exit_statuses))
    out = []
    for command in block.commands():
        out.append(command)
        out.append(
            f'_s=$?; case " {allowed} " in *" $_s "*) ;; '
            f"*) echo \"readme-commands: '{_quote(command)}' exited $_s (expected {allowed})\" >&2; exit 1;; esac"
        )
    return "\n".join(out) + "\n"


def _quote(command: str) -> str:
    return command.replace("\\", "\\\\").replace('"', '\\"').replace("$", "\\$").replace("`", "\\`")


def environment(checkout: Path, python: Path | None) -> dict[str, str]:
    """PATH with the checkout's .venv/bin (and the given interpreter's folder) first."""
    first = [str(checkout / ".venv" / "bin")]
    if python is not None:
        first.insert(0, str(python.parent))
    env = {key: value for key, value in os.environ.items() if not key.startswith(("GIT_", "VIRTUAL_ENV"))}
    env["PATH"] = os.pathsep.join([*first, env.get("PATH", "")])
    env["NO_COLOR"] = "1"
    return env


def interpreter(checkout: Path, python: Path | None) -> str:
    if python is not None:
        return str(python)
    venv = checkout / ".venv" / "bin" / "python"
    return str(venv) if venv.exists() else sys.executable


def run_block(block: Block, checkout: Path, python: Path | None = None, timeout: float = 3600) -> Outcome:
    """Runs one command block in ``checkout``; ``python`` runs its python blocks and is first on PATH."""
    if block.skip:
        return Outcome(block, "skipped", block.reason)
    if block.lang == "python":
        argv, stdin = [interpreter(checkout, python), "-"], block.text
    else:
        argv, stdin = ["sh", "-s"], shell_script(block)
    start = time.monotonic()
    try:
        done = subprocess.run(
            argv,
            input=stdin,
            cwd=checkout,
            env=environment(checkout, python),
            capture_output=True,
            text=True,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired:
        return Outcome(block, "failed", f"still running after {timeout:.0f} s", time.monotonic() - start)
    seconds = time.monotonic() - start
    if done.returncode != 0:
        tail = "\n".join((done.stdout + done.stderr).splitlines()[-40:])
        return Outcome(block, "failed", f"exit status {done.returncode}\n{tail}", seconds)
    return Outcome(block, "passed", "", seconds)


def run_all(
    readme: str, checkout: Path, python: Path | None = None, fast: bool = False, timeout: float = 3600
) -> Iterator[Outcome]:
    """Each command block's outcome, in README order, up to and including the first failure."""
    for block in command_blocks(readme):
        if fast and block.slow and not block.skip:
            yield Outcome(block, "skipped", f"slow, left out by --fast: {block.reason}")
            continue
        outcome = run_block(block, checkout, python, timeout)
        yield outcome
        if outcome.status == "failed":
            return


def fresh_clone(into: Path) -> Path:
    """A clone of this repository's HEAD (committed files only, as a user gets them)."""
    clone = into / "aigcheck"
    env = {key: value for key, value in os.environ.items() if not key.startswith("GIT_")}
    subprocess.run(["git", "clone", "--quiet", str(ROOT), str(clone)], check=True, env=env)
    return clone


def describe(block: Block) -> str:
    first = block.commands()[0] if block.lang != "python" and block.commands() else block.text.splitlines()[0]
    return f"README.md:{block.line} {block.lang}: {first[:70]}"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checkout", type=Path, help="run in this checkout (default: a fresh clone of HEAD)")
    parser.add_argument("--python", type=Path, help="the interpreter for python blocks (default: .venv/bin/python)")
    parser.add_argument("--fast", action="store_true", help="leave out the blocks marked slow")
    parser.add_argument("--list", action="store_true", help="list the command blocks and their markers; run nothing")
    parser.add_argument("--timeout", type=float, default=3600, help="seconds a block may take (default 3600)")
    options = parser.parse_args(argv)
    python = options.python.absolute() if options.python else None
    with tempfile.TemporaryDirectory(prefix="readme-commands-") as scratch:
        if options.checkout:
            checkout = options.checkout.resolve()
        elif options.list:
            checkout = ROOT
        else:
            checkout = fresh_clone(Path(scratch))
        try:
            readme = (checkout / "README.md").read_text(encoding="utf-8")
            listed = command_blocks(readme)
        except (OSError, MarkerError) as error:
            print(f"readme_commands: {error}", file=sys.stderr)
            return 2
        if options.list:
            for block in listed:
                kind = "skip" if block.skip else "slow" if block.slow else "run"
                print(f"{describe(block)}  [{kind}{': ' + block.reason if block.reason else ''}]")
            return 0
        print(f"readme_commands: running the README's command blocks in {checkout}", flush=True)
        failed = False
        for outcome in run_all(readme, checkout, python, options.fast, options.timeout):
            took = f" ({outcome.seconds:.0f} s)" if outcome.status != "skipped" else ""
            print(f"{outcome.status:>7}{took}  {describe(outcome.block)}", flush=True)
            if outcome.detail:
                print("         " + outcome.detail.replace("\n", "\n         "), flush=True)
            failed = failed or outcome.status == "failed"
    if failed:
        print("readme_commands: stopped at the first failing block; fix it (or mark it) and run again", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
