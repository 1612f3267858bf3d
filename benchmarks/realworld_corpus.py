"""Our own corpus for benchmarks/realworld.py: findings compared with the markers on their lines.

``benchmarks/own_corpus`` holds small packages written in the styles found in the wild;
every line where a finding is expected carries ``# AIGnnn`` (checker/spec/markers.py), and
a marker the checker does not meet yet says why: ``# AIG302 missed: why``. Each marked or
reported line is a match, a known miss, a miss or a false finding.
"""

from __future__ import annotations

import io
import re
import tokenize
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

CORPUS = Path(__file__).resolve().parent / "own_corpus"
_MARKER = re.compile(r"\bAIG\d{3}\b")
_MISSED = re.compile(r"\bmissed:\s*(.*)")

#: The corpus's known misses (its '# AIGnnn missed: why' markers), said in full.
#: What the corpus found missing when it was written, each since fixed (its marker now matches).
CORPUS_FIXED = [
    "tinylm/ shares its package's name (tinylm/src/tinylm, a common layout): scripts/train.py's "
    "`config.USE_FLASH = False` was not seen as a write of src/tinylm/config.py (AIG302 of kernels.py's "
    "`attention`), and scripts/export.py's `model = TinyLM()` not as an nn.Module instance (AIG402): an "
    "enclosing folder named as the package was taken for a namespace package. Found since a70592f.",
    "`for _op in (layer_scale, swish, chunked_mean): _allow_in_graph(_op)` in fusedops/__init__.py registered "
    "nothing the analysis saw (chunked_mean's read of CONFIG.block_size, AIG302): loops now register what they "
    "iterate as the list form does. Found since 1d23b0c.",
]


@dataclass(frozen=True)
class Compared:
    """One line of the corpus: the findings its markers expect, those made, and a known miss's reason."""

    where: str
    code: str
    marked: int
    found: int
    missed: str | None  # the reason a '# AIGnnn missed: why' marker gives

    @property
    def outcome(self) -> str:
        if self.found > self.marked:
            return "FALSE FINDING"
        if self.found < self.marked:
            return "known miss" if self.missed else "MISSED"
        return "match"

    @property
    def result(self) -> str:
        return f"known miss: {self.missed}" if self.outcome == "known miss" else self.outcome


def corpus_markers(root: Path) -> tuple[Counter[tuple[str, int, str]], dict[tuple[str, int], str]]:
    """Every ``# AIGnnn`` marker under ``root`` by (file, line, code), and the known misses' reasons by line."""
    marked: Counter[tuple[str, int, str]] = Counter()
    missed: dict[tuple[str, int], str] = {}
    for path in sorted(root.rglob("*.py")):
        name = path.relative_to(root).as_posix()
        for token in tokenize.generate_tokens(io.StringIO(path.read_text(encoding="utf-8")).readline):
            if token.type == tokenize.COMMENT:
                for code in _MARKER.findall(token.string):
                    marked[(name, token.start[0], code)] += 1
                reason = _MISSED.search(token.string)
                if reason:
                    missed[(name, token.start[0])] = reason.group(1)
    return marked, missed


def compare(root: Path, found: list[dict[str, object]]) -> list[Compared]:
    """Each marked or reported (file, line, code) of the corpus, in file order."""
    marked, missed = corpus_markers(root)
    made: Counter[tuple[str, int, str]] = Counter()
    for item in found:
        name = Path(str(item["path"])).resolve().relative_to(root.resolve()).as_posix()
        made[(name, int(str(item["line"])), str(item["code"]))] += 1
    return [
        Compared(f"{name}:{line}", code, marked[(name, line, code)], made[(name, line, code)], missed.get((name, line)))
        for name, line, code in sorted(set(marked) | set(made))
    ]


def render_corpus(compared: list[Compared], environment: str) -> list[str]:
    """The corpus section of REALWORLD.md; ``environment`` as the run named it."""
    counts = Counter(row.outcome for row in compared)
    matched = sum(min(row.marked, row.found) for row in compared)
    lines = [
        f"## our own corpus (benchmarks/own_corpus: {sum(row.marked for row in compared)} markers, "
        f"{sum(row.found for row in compared)} findings)",
        "",
        f"Checked with `--python-environment {environment}`. Four small packages written for this from "
        "general knowledge of PyTorch code: a model zoo (transformer blocks and attention kernels, registered with "
        "`allow_in_graph` and a `maybe_allow_in_graph` helper), a fused-ops package (a config dataclass, "
        "environment switches, memo dicts and `lru_cache`), a diffusion pipeline with schedulers, and a src-layout "
        "package with scripts. About two in five of their registrations break the contract; every line "
        "where a finding is expected carries its `# AIGnnn` marker, by the evidence, and `tests/checker/test_own_corpus.py` holds the "
        "checker to them, less the known misses.",
        "",
        f"Matched {matched}; missed {counts['known miss'] + counts['MISSED']} ({counts['known miss']} known); "
        f"false findings {counts['FALSE FINDING']}.",
        "",
        "| file:line | code | marked | found | result |",
        "|---|---|---|---|---|",
    ]
    lines += [f"| `{row.where}` | {row.code} | {row.marked} | {row.found} | {row.result} |" for row in compared]
    lines += ["", "Misses the corpus found when it was written, fixed since:", ""]
    lines += [f"- {fixed}" for fixed in CORPUS_FIXED]
    return [*lines, ""]
