"""Pathological but legal inputs stay fast (issue 12, item 5).

    .venv/bin/python benchmarks/pathological.py [--shapes a,b] [--scale 1.0] [--out FILE]

Writes one file per shape (each registers a function, so the file really is analysed),
then measures, each in a fresh process: the parse floor (``libcst.parse_module`` of the
same text: its wall and CPU seconds inside the process, and that process's peak RSS) and
``aigcheck --isolated --no-cache -j 1 --output-format json FILE`` (wall and CPU seconds,
peak RSS of the process, findings). CPU seconds are the steadier on a shared machine. It prints a Markdown table, and writes it to ``--out``
when given. The generators are also used by ``tests/reliability/test_pathological_inputs.py``
at smaller sizes: they are standard library only and run nothing on import.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

HEADER = "import torch\n\nW = torch.ones(3)\n\n"


def _chunks(items: list[str], per_line: int) -> str:
    """``items`` comma-separated, ``per_line`` of them on each indented line."""
    return "".join(f"    {', '.join(items[i : i + per_line])},\n" for i in range(0, len(items), per_line))


def module_lines(n: int) -> str:
    """About ``n`` lines of ordinary top-level code, and one registered function reading ``W``."""
    blocks = []
    for i in range(max(n // 10, 1)):
        blocks.append(
            f"V{i} = {i}\n"
            f"def helper_{i}(x):\n"
            f"    return x + V{i}\n"
            f"class C{i}:\n"
            f"    attr = {i}\n"
            f"    def method(self, y):\n"
            f"        return y * self.attr\n"
            f"if V{i} > 3:\n"
            f"    V{i} = -1\n"
            f"print(helper_{i}(V{i}))\n"
        )
    return HEADER + "".join(blocks) + "@torch.compiler.allow_in_graph\ndef f(x):\n    return x * W  # AIG301\n"


def body_lines(n: int) -> str:
    """A registered function whose body is about ``n`` lines; it reads ``W`` at the end."""
    body = []
    for i in range(max(n // 5, 1)):
        body.append(
            f"    y{i} = x + {i}\n"
            f"    if y{i} is None:\n"
            f"        y{i} = x\n"
            f"    for k in range({i % 7}):\n"
            f"        x = x + y{i}\n"
        )
    return HEADER + "@torch.compiler.allow_in_graph\ndef f(x):\n" + "".join(body) + "    return x * W  # AIG301\n"


def tuple_elements(n: int) -> str:
    """A module-level tuple of ``n`` ints, read by a registered function."""
    return _literal_read_by_registered("T", "(", ")", n)


def list_elements(n: int) -> str:
    """A module-level list of ``n`` ints, read by a registered function."""
    return _literal_read_by_registered("L", "[", "]", n)


def _literal_read_by_registered(name: str, opening: str, closing: str, n: int) -> str:
    items = [str(i) for i in range(n)]
    return (
        HEADER
        + f"{name} = {opening}\n"
        + _chunks(items, 10)
        + f"{closing}\n\n@torch.compiler.allow_in_graph\ndef f(x):\n    return x * W + {name}[0]  # AIG301\n"
    )


def call_arguments(n: int) -> str:
    """A call of a registered function with ``n`` arguments, one of them a lambda."""
    items = [str(i) for i in range(n - 2)]
    return (
        HEADER
        + "@torch.compiler.allow_in_graph\ndef f(x, *args):\n    return x * W  # AIG301\n\n"
        + "def caller(x):\n    return f(\n        x,\n        lambda: 0,  # AIG104\n"
        + _chunks(items, 10)
        + "    )\n"
    )


def decorated_registrations(n: int) -> str:
    """``n`` decorated functions; every tenth reads ``W``."""
    return HEADER + "".join(f"@torch.compiler.allow_in_graph\n{_registered_def(i)}" for i in range(n))


def call_registrations(n: int) -> str:
    """``n`` functions registered by ``torch.compiler.allow_in_graph(f_i)``; every tenth reads ``W``."""
    return HEADER + "".join(f"{_registered_def(i)}torch.compiler.allow_in_graph(f{i})\n" for i in range(n))


def _registered_def(i: int) -> str:
    """``f{i}``, which reads ``W`` when ``i`` is a multiple of ten."""
    body = "x * W  # AIG301" if i % 10 == 0 else f"x + {i}"
    return f"def f{i}(x):\n    return {body}\n"


def data_literal(size: int) -> str:
    """A data file of about ``size`` bytes: a module-level list of one-digit numbers, forty
    to a line as a generator writes them (``0,1,2,``), and one registered function reading
    ``W`` (and the list)."""
    count = max(size // 2, 1)
    rows = "".join(",".join(str((i + k) % 10) for k in range(min(40, count - i))) + ",\n" for i in range(0, count, 40))
    return (
        HEADER
        + "DATA = [\n"
        + rows
        + "]\n\n\n@torch.compiler.allow_in_graph\ndef f(x):\n    return x * W + DATA[0]  # AIG301\n"
    )


def plus_chain(n: int) -> str:
    """A registered function returning a ``+`` chain of ``n`` operands (libcst parses these superlinearly)."""
    operands = " + ".join(["x"] * n)
    return HEADER + f"@torch.compiler.allow_in_graph\ndef f(x):\n    return {operands} + W  # AIG301\n"


#: Modules per package of a generated tree (``project_tree``).
PER_PACKAGE = 100


def project_tree(root: Path, files: int, every: int = 20) -> int:
    """Write a package of ``files`` modules under ``root/proj`` (``PER_PACKAGE`` to a
    subpackage) and return how many findings it holds. One module in ``every`` registers a
    function (5% by default) reading a tensor of its own (AIG301), an int and a dict it
    imports from the module before it; one in ``every`` calls such a function with a lambda
    (AIG104) and changes that dict (AIG302 where it is read); the others are ordinary code
    importing a helper from the module before them. ``every`` divides ``PER_PACKAGE``."""
    top = root / "proj"
    top.mkdir(parents=True)
    (top / "__init__.py").write_text("", encoding="utf-8")
    findings = 0
    for i in range(files):
        package = top / f"sub{i // PER_PACKAGE}"
        if i % PER_PACKAGE == 0:
            package.mkdir()
            (package / "__init__.py").write_text("", encoding="utf-8")
        if i % every == 1:
            text, findings = _registering_module(i), findings + 2
        elif i % every == 1 + every // 2:
            text, findings = _calling_module(i, i - every // 2), findings + 1
        else:
            text = _ordinary_module(i, i - 1 if i % PER_PACKAGE else None)
        (package / f"m{i}.py").write_text(text, encoding="utf-8")
    return findings


def _ordinary_module(i: int, before: int | None) -> str:
    imported = f"from .m{before} import helper_{before} as step\n" if before is not None else "step = abs\n"
    return (
        f'"""Module {i}."""\nimport math\n\n{imported}\nLIMIT_{i} = {i}\nTABLE_{i} = {{"a": {i}}}\n\n\n'
        f"def helper_{i}(x):\n    return x + LIMIT_{i}\n\n\n"
        f"class Thing{i}:\n    def __init__(self):\n        self.v = step(1)\n\n"
        f"    def run(self, y):\n        return math.sqrt(y) * self.v\n"
    )


def _registering_module(i: int) -> str:
    """Registers ``reg_{i}``: AIG301 for ``W``, AIG302 for the dict ``_calling_module`` changes."""
    return (
        f'"""Module {i}: registers reg_{i}."""\nimport torch\n\nfrom .m{i - 1} import LIMIT_{i - 1}, TABLE_{i - 1}\n\n'
        f"W = torch.ones(3)\n\n\n@torch.compiler.allow_in_graph\ndef reg_{i}(x):\n"
        f"    return x * W + LIMIT_{i - 1} + TABLE_{i - 1}['a']  # AIG301 AIG302\n"
    )


def _calling_module(i: int, registering: int) -> str:
    return (
        f'"""Module {i}: calls reg_{registering}."""\nfrom . import m{registering - 1}\n'
        f"from .m{registering} import reg_{registering}\n\nm{registering - 1}.TABLE_{registering - 1}['a'] = 2\n\n\n"
        f"def use(x):\n    return reg_{registering}(x, lambda: 0)  # AIG104\n"
    )


@dataclass(frozen=True)
class Shape:
    """One pathological input: its generator and its full size."""

    name: str
    make: Callable[[int], str]
    size: int


SHAPES = (
    Shape("100k-line module", module_lines, 100_000),
    Shape("registered function, 100k-line body", body_lines, 100_000),
    Shape("10k-element tuple", tuple_elements, 10_000),
    Shape("100k-element list", list_elements, 100_000),
    Shape("10k call arguments", call_arguments, 10_000),
    Shape("20k decorated registrations", decorated_registrations, 20_000),
    Shape("20k allow_in_graph(f) calls", call_registrations, 20_000),
    Shape("2k-operand + chain (parse floor)", plus_chain, 2_000),
    Shape("2 MB data literal (one-digit numbers)", data_literal, 2_000_000),
)


def expected_findings(text: str) -> int:
    """How many expected findings (``# AIG301`` markers) the generated text carries."""
    return len(re.findall(r"# AIG\d{3}", text))


_PARSE_FLOOR = (
    "import sys, time, libcst\n"
    "text = open(sys.argv[1], encoding='utf-8').read()\n"
    "start, cpu = time.perf_counter(), time.process_time()\n"
    "libcst.parse_module(text)\n"
    "print(time.perf_counter() - start, time.process_time() - cpu)\n"
)


def main(argv: list[str] | None = None) -> int:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import corpus_measure as m  # the benchmarks folder is not a package

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shapes", default="", help="comma-separated name prefixes (default: all)")
    parser.add_argument("--scale", type=float, default=1.0, help="multiply every size by this")
    parser.add_argument("--out", type=Path, help="also write the table here")
    parser.add_argument("--aigcheck", default=str(Path(sys.executable).parent / "aigcheck"))
    parser.add_argument("--timeout", type=float, default=300)
    args = parser.parse_args(argv)
    wanted = [prefix.strip() for prefix in args.shapes.split(",") if prefix.strip()]
    workdir = Path(tempfile.mkdtemp(prefix="aigcheck-pathological-"))
    rows = [
        "| input | lines | parse floor wall / CPU s, RSS MB | aigcheck wall / CPU s | aigcheck peak RSS MB | findings (expected) |",
        "|---|---|---|---|---|---|",
    ]
    print("\n".join(rows), flush=True)
    for shape in SHAPES:
        if wanted and not any(shape.name.startswith(prefix) for prefix in wanted):
            continue
        text = shape.make(int(shape.size * args.scale))
        path = workdir / "pathological.py"
        path.write_text(text, encoding="utf-8")
        floor = m.run_child([sys.executable, "-c", _PARSE_FLOOR, str(path)], cwd=workdir, timeout=args.timeout)
        if floor.ok:
            wall, cpu = (float(value) for value in floor.stdout.split())
            floor_text = f"{wall:.2f} / {cpu:.2f}, {floor.rss_mb:.0f}"
        else:
            floor_text = floor.problem
        command = [
            *args.aigcheck.split(),
            "--isolated",
            "--no-cache",
            "-j",
            "1",
            "--exit-zero",
            "--output-format",
            "json",
        ]
        run = m.run_child([*command, str(path)], cwd=workdir, timeout=args.timeout)
        if run.ok:
            found = json.loads(run.stdout)
            codes = sorted({finding["code"] for finding in found})
            counted = f"{len(found)} {'/'.join(codes)} ({expected_findings(text)})"
            result = f"{run.wall:.2f} / {run.cpu:.2f} | {run.rss_mb:.0f} | {counted}"
        else:
            result = f"{run.problem} | | "
        row = f"| {shape.name} | {text.count(chr(10))} | {floor_text} | {result} |"
        rows.append(row)
        print(row, flush=True)
    if args.out:
        args.out.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
