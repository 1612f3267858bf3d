"""The README's command blocks run as written (``scripts/readme_commands.py``).

Each cheap block (the ``aigcheck`` lines on ``fixtures/``, the backend example) runs here
in this checkout, with this interpreter first on PATH; the blocks that take minutes
(``make demo``, ``make test``) or cannot run here (an install from a git URL) must be
marked, with the reason, and the script runs or lists them in a fresh clone.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
_SPEC = importlib.util.spec_from_file_location("readme_commands", ROOT / "scripts" / "readme_commands.py")
assert _SPEC is not None and _SPEC.loader is not None
readme_commands = importlib.util.module_from_spec(_SPEC)
sys.modules[_SPEC.name] = readme_commands  # dataclasses look their module up by name
_SPEC.loader.exec_module(readme_commands)

README = (ROOT / "README.md").read_text(encoding="utf-8")
BLOCKS = readme_commands.command_blocks(README)
CHEAP = [block for block in BLOCKS if not block.skip and not block.slow]
HAS_TORCH = importlib.util.find_spec("torch") is not None


def _id(block: object) -> str:
    words = readme_commands.describe(block).split(": ", 1)[1].split()
    return f"line-{block.line}-{'-'.join(words[:2])}"  # type: ignore[attr-defined]


def test_every_command_block_runs_or_says_why_not() -> None:
    assert CHEAP, "the README has no command block that runs here"
    for block in BLOCKS:
        assert block.commands() or block.lang == "python", f"README.md:{block.line}: an empty command block"
        if block.skip or block.slow:
            assert block.reason, f"README.md:{block.line}: a skip or slow marker needs its reason"


def test_the_slow_blocks_are_the_make_targets_that_install() -> None:
    slow = {
        command.split()[1]
        for block in BLOCKS
        if block.slow
        for command in block.commands()
        if command.startswith("make ")
    }
    assert {"demo", "test"} <= slow


@pytest.mark.parametrize("block", CHEAP, ids=_id)
def test_block_runs_as_written(block: object) -> None:
    installs = [c for c in block.commands() if c.startswith(("make ", "pip "))]  # type: ignore[attr-defined]
    assert not installs, f"README.md:{block.line}: {installs[0]!r} installs: mark the block slow or skip"  # type: ignore[attr-defined]
    if block.lang == "python" and not HAS_TORCH:  # type: ignore[attr-defined]
        pytest.skip("the python blocks need torch")
    outcome = readme_commands.run_block(block, ROOT, Path(sys.executable), timeout=600)
    assert outcome.status == "passed", f"{readme_commands.describe(block)}: {outcome.detail}"


# -- the script's own rules, on a README written here ----------------------------------------

SAMPLE = """\
Text.

```sh
echo one   # a comment
# a comment line
echo two \\
  three
```

<!-- readme-commands: exit 0 3 (3 is what it says) -->

```console
$ sh -c 'exit 3'
output, not a command
```

<!-- readme-commands: skip (needs the network) -->
```sh
pip install something
```

```python
print("not a command block: unmarked")
```

<!-- readme-commands: run -->
```python
print("a command block")
```
"""


def test_blocks_lines_prompts_and_markers() -> None:
    found = readme_commands.command_blocks(SAMPLE)
    assert [(b.line, b.lang) for b in found] == [(3, "sh"), (12, "console"), (18, "sh"), (27, "python")]
    assert found[0].commands() == ["echo one   # a comment", "echo two three"]
    assert found[1].commands() == ["sh -c 'exit 3'"] and found[1].exit_statuses == {0, 3}
    assert found[2].skip and found[2].reason == "needs the network"
    assert found[3].run


def test_a_line_with_an_unexpected_status_fails_its_block(tmp_path: Path) -> None:
    ok, accepted, skipped, _ = readme_commands.command_blocks(SAMPLE)
    assert readme_commands.run_block(ok, tmp_path).status == "passed"
    assert readme_commands.run_block(accepted, tmp_path).status == "passed"
    assert readme_commands.run_block(skipped, tmp_path).status == "skipped"
    failing = readme_commands.command_blocks("```sh\ntrue\nfalse\necho never\n```\n")[0]
    outcome = readme_commands.run_block(failing, tmp_path)
    assert outcome.status == "failed" and "'false' exited 1 (expected 0)" in outcome.detail
    assert "never" not in outcome.detail


def test_the_state_of_a_block_carries_from_line_to_line(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    block = readme_commands.command_blocks('```sh\ncd sub\nX=1\ntest "$X" = 1 && test -d ../sub\n```\n')[0]
    assert readme_commands.run_block(block, tmp_path).status == "passed"


@pytest.mark.parametrize(
    "marker", ["<!-- readme-commands: skip -->", "<!-- readme-commands: slowly (x) -->", "<!-- readme-commands: 1 -->"]
)
def test_a_marker_without_its_reason_or_with_an_unknown_word_is_refused(marker: str) -> None:
    with pytest.raises(readme_commands.MarkerError):
        readme_commands.command_blocks(f"{marker}\n```sh\ntrue\n```\n")
