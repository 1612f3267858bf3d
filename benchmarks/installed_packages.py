"""What resolving names from installed packages costs a project that uses diffusers.

The project: diffusers' own transformer model files, copied into a package of their own
(``mymodels``) with each relative import made absolute (``from ...utils.torch_utils import
maybe_allow_in_graph`` becomes ``from diffusers.utils.torch_utils import ...``), so that
every helper, base class and attention processor they use is imported from the installed
diffusers, as a project built on it imports them. Each repeat times, in one process each,
cold runs (``--no-cache``), in turn: ``on``, installed packages resolved
(``--python-environment`` the environment diffusers is installed in); ``table``, resolution on
but an environment without diffusers (its helper comes from the table of well-known
registrars: the same findings, nothing of diffusers read); ``off``,
``--no-installed-packages`` (no findings: the helper is unknown). It prints the medians
of the wall and CPU times (the run's own and its workers'); ``on``/``table`` is what
reading the installed package costs.

The environment is what aigcheck takes for one: a folder with ``lib/python3*/site-packages``
(or ``Lib/site-packages``), or a ``site-packages`` folder itself. A bare ``pip install
--target`` folder is neither, so aigcheck would read nothing there and ``on`` would be
``table`` again (as the first measurement was): the benchmark refuses such a folder.

    pip install --no-deps diffusers==0.42.1 --target /tmp/env/lib/python3.11/site-packages
    .venv/bin/python benchmarks/installed_packages.py /tmp/env [--repeats 7] [--files 12] [--jobs N]
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

#: diffusers' transformer files the project is made of (those that use maybe_allow_in_graph first).
FOLDER = "diffusers/models/transformers"
#: What makes a folder an environment's import folder for aigcheck (``installed_folders`` in
#: checker/reading/environment.py, mirrored here: a benchmark goes through the front door only).
_SITE_NAMES = ("site-packages", "dist-packages")
_RELATIVE = re.compile(r"^(\s*from\s+)(\.+)([\w.]*)(\s+import\b)", re.MULTILINE)


def make_project(site: Path, where: Path, count: int) -> list[Path]:
    """``count`` of diffusers' transformer files under ``where/mymodels``, their relative imports absolute."""
    sources = sorted((site / FOLDER).glob("*.py"), key=lambda p: ("maybe_allow_in_graph" not in p.read_text(), p.name))
    package = where / "mymodels"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (where / "pyproject.toml").write_text('[project]\nname = "mymodels"\n')
    made = []
    for source in [s for s in sources if s.name != "__init__.py"][:count]:
        module = source.relative_to(site).with_suffix("").parts  # diffusers, models, transformers, x

        def absolute(match: re.Match[str], module: tuple[str, ...] = module) -> str:
            up = len(match.group(2))
            base = ".".join(module[:-up])
            name = f"{base}.{match.group(3)}" if match.group(3) else base
            return f"{match.group(1)}{name}{match.group(4)}"

        target = package / source.name
        target.write_text(_RELATIVE.sub(absolute, source.read_text(encoding="utf-8")), encoding="utf-8")
        made.append(target)
    return made


def diffusers_site(environment: Path) -> Path:
    """The ``site-packages`` folder of ``environment`` that holds diffusers, found as aigcheck
    finds an environment's folders; a clear stop where aigcheck would read nothing there."""
    if environment.name in _SITE_NAMES:
        folders = [environment] if environment.is_dir() else []
    else:
        folders = sorted(path for path in environment.glob("lib/python3*/site-packages") if path.is_dir())
        folders += [path for path in (environment / "Lib" / "site-packages",) if path.is_dir()]
    if not folders:
        raise SystemExit(
            f"{environment}: not an environment aigcheck reads (no lib/python3*/site-packages, "
            "Lib/site-packages, nor a folder named site-packages); install with "
            "pip install --no-deps diffusers==0.42.1 --target ENV/lib/python3.11/site-packages"
        )
    site = next((folder for folder in folders if (folder / FOLDER).is_dir()), None)
    if site is None:
        raise SystemExit(f"{environment}: no {FOLDER} in its site-packages ({', '.join(map(str, folders))})")
    return site


def timed(command: list[str]) -> tuple[float, float, str]:
    """Wall seconds, CPU seconds (the process and its children) and the last line of stdout."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if done.returncode not in (0, 1):
        raise SystemExit(f"aigcheck failed ({done.returncode}): {done.stderr[-2000:]}")
    return wall, cpu, (done.stdout.strip().splitlines() or [""])[-1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("environment", type=Path, help="the environment diffusers is installed in (see above)")
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--files", type=int, default=12, help="how many of diffusers' transformer files")
    parser.add_argument("--jobs", type=int, default=None)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        site = diffusers_site(args.environment)
        files = make_project(site, root, args.files)
        size = sum(path.stat().st_size for path in files)
        base = [sys.executable, "-m", "checker", "--isolated", "--no-cache", "--quiet"]
        base += ["--jobs", str(args.jobs)] if args.jobs else []
        empty = root / "empty-environment"
        empty.mkdir()
        runs = {
            "on": [*base, "--python-environment", str(args.environment), str(root)],
            "table": [*base, "--python-environment", str(empty), str(root)],
            "off": [*base, "--no-installed-packages", str(root)],
        }
        env_note = {key: value for key, value in os.environ.items() if key == "VIRTUAL_ENV"}
        print(f"{len(files)} files ({size // 1024} KiB) of {FOLDER}; {args.repeats} repeats; {env_note or ''}")
        times: dict[str, list[tuple[float, float]]] = {name: [] for name in runs}
        findings: dict[str, int] = {}
        timed(runs["on"])  # (warm the file system's cache)
        for _ in range(args.repeats):
            for name, command in runs.items():
                wall, cpu, _ = timed(command)
                times[name].append((wall, cpu))
        for name, command in runs.items():
            out = subprocess.run([*command, "--output-format", "json"], capture_output=True, text=True, check=False)
            findings[name] = out.stdout.count('"code"')
        for name, pairs in times.items():
            wall = statistics.median(w for w, _ in pairs)
            cpu = statistics.median(c for _, c in pairs)
            print(f"{name:>5}: wall {wall:.2f} s, CPU {cpu:.2f} s (median), {findings[name]} findings")
        for name in ("table", "off"):
            wall = statistics.median(w / v for (w, _), (v, _) in zip(times["on"], times[name], strict=True))
            cpu = statistics.median(c / d for (_, c), (_, d) in zip(times["on"], times[name], strict=True))
            print(f"on/{name}: wall {wall:.3f}, CPU {cpu:.3f} (median of the repeats' ratios)")


if __name__ == "__main__":
    main()
