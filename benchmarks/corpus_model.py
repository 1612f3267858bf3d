"""What the corpus benchmark measures, as data: the command under test, each tree and
its measurements, and the run's context. ``corpus.py`` fills it in, ``corpus_report.py``
writes it out."""

from __future__ import annotations

import argparse
import re
from dataclasses import dataclass, field
from pathlib import Path

try:
    from . import corpus_measure as m
except ImportError:  # run as a script: python benchmarks/corpus.py
    import corpus_measure as m  # type: ignore[no-redef]


@dataclass
class Aigcheck:
    """The aigcheck command line under test, with flags chosen by what its ``--help`` offers."""

    argv: list[str]
    help: str
    jobs: int | None = None

    def supports(self, flag: str) -> bool:
        return re.search(rf"(?<![\w-]){re.escape(flag)}(?![\w-])", self.help) is not None

    @property
    def has_cache(self) -> bool:
        return self.supports("--cache-dir") or self.supports("--no-cache")

    def command(self, paths: list[Path], cache: Path | None = None, no_cache: bool = False) -> list[str]:
        argv = [*self.argv, "--exit-zero", "-q", "--output-format", "json"]
        if self.supports("--isolated"):
            argv.append("--isolated")
        if self.jobs is not None and self.supports("--jobs"):
            argv += ["--jobs", str(self.jobs)]
        if cache is not None and self.supports("--cache-dir"):
            argv += ["--cache-dir", str(cache)]
        elif no_cache and self.supports("--no-cache"):
            argv.append("--no-cache")
        return argv + [str(path) for path in paths]


@dataclass
class Tree:
    """One tree and everything measured on it."""

    label: str
    version: str
    root: Path | None = None
    error: str | None = None
    files: int = 0
    lines: int = 0
    size: int = 0
    mentioning: list[Path] = field(default_factory=list)
    findings: int | None = None
    findings_note: str = ""
    read: m.Series = field(default_factory=m.Series)
    read_inner: list[dict[str, float]] = field(default_factory=list)
    cold: m.Series = field(default_factory=m.Series)
    no_cache: m.Series = field(default_factory=m.Series)
    warm: m.Series = field(default_factory=m.Series)
    ruff: m.Series = field(default_factory=m.Series)
    one_file: m.Series = field(default_factory=m.Series)
    one_file_path: Path | None = None
    reg_aig: m.Series = field(default_factory=m.Series)
    reg_parse: m.Series = field(default_factory=m.Series)
    reg_parse_inner: list[dict[str, float]] = field(default_factory=list)
    torchfix: m.Proc | None = None
    torchfix_note: str = "not run"
    torchfix_findings: int | None = None
    torchfix_reg: m.Proc | None = None
    torchfix_reg_note: str = "not run"
    busy_before: float | None = None
    waited: float = 0.0


@dataclass
class Context:
    args: argparse.Namespace
    python: str
    ruff: list[str]
    aig: Aigcheck
    workdir: Path
    run_dir: Path
    machine: dict[str, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
