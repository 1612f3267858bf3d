"""Timing child processes and preparing the trees for ``benchmarks/corpus.py``.

Standard library only; no measurement runs on import.
"""

from __future__ import annotations

import json
import os
import signal
import statistics
import subprocess
import sys
import tarfile
import threading
import time
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

#: Directory names aigcheck never walks into (``checker.reading.discovery.DEFAULT_EXCLUDES``), kept in
#: step by hand so that the benchmark does not import the code it measures.
SKIPPED_DIRS = frozenset(
    {".git", ".hg", ".svn", ".venv", "venv", ".tox", ".nox", ".eggs", "build", "dist", "__pycache__"}
    | {"node_modules", ".mypy_cache", ".pytest_cache", ".ruff_cache", ".aigcheck_cache"}
)


#: GNU time measures a command's peak RSS from a small process of its own. ``wait4`` alone would
#: not do: Linux carries the exec-ing process's old peak into ``ru_maxrss``, and a child forked
#: from this script starts with this script's pages.
GNU_TIME = "/usr/bin/time"


def log(message: str) -> None:
    print(f"[corpus {time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


@dataclass
class Proc:
    """One child process: wall and CPU seconds, peak RSS, exit status, or why it did not run."""

    wall: float = 0.0
    cpu: float = 0.0
    rss_mb: float = 0.0
    #: The largest sum of the RSS of the child and every process of its session at one moment
    #: (sampled every 50 ms; ``run_child(group_rss=True)`` only).
    group_rss_mb: float = 0.0
    rc: int | None = None
    other_busy: float | None = None
    timed_out: bool = False
    error: str | None = None
    stdout: str = ""

    @property
    def ok(self) -> bool:
        return self.error is None and not self.timed_out and self.rc is not None

    @property
    def problem(self) -> str | None:
        """Why there is no usable number, or None."""
        if self.error:
            return self.error
        if self.timed_out:
            return f"did not finish in {self.wall:.0f} s"
        return None if self.rc is not None else "no exit status"


@dataclass
class Series:
    """Repeated runs of one measurement; the report uses medians."""

    runs: list[Proc] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return bool(self.runs) and all(run.ok for run in self.runs)

    @property
    def wall(self) -> float:
        return statistics.median(run.wall for run in self.runs)

    @property
    def cpu(self) -> float:
        return statistics.median(run.cpu for run in self.runs)

    @property
    def rss_mb(self) -> float:
        return max(run.rss_mb for run in self.runs)

    @property
    def other_busy(self) -> float | None:
        """The most of the machine's CPUs that other processes used during one of the runs."""
        values = [run.other_busy for run in self.runs if run.other_busy is not None]
        return max(values) if values else None

    @property
    def problem(self) -> str | None:
        """Why the series has no usable number, or None."""
        problems = [run.problem for run in self.runs if run.problem]
        return problems[0] if problems else None if self.runs else "not run"


def run_child(
    argv: Sequence[str],
    *,
    cwd: Path,
    timeout: float | None = None,
    ok_codes: Sequence[int] = (0,),
    group_rss: bool = False,
    env: dict[str, str] | None = None,
) -> Proc:
    """Run ``argv`` and measure it with ``wait4``: the rusage of that child and its reaped workers.

    The child gets a session of its own so that a timeout ends its workers too; with
    ``group_rss``, the RSS of that whole session is sampled too. ``env``: added to the
    environment.
    """
    out_path, err_path, rss_path = (cwd / f".child-{os.getpid()}.{kind}" for kind in ("out", "err", "rss"))
    rss_path.unlink(missing_ok=True)
    if os.access(GNU_TIME, os.X_OK):
        argv = [GNU_TIME, "-f", "%M", "-o", str(rss_path), *argv]
    with open(out_path, "wb") as out, open(err_path, "wb") as err:
        busy_before = _busy_seconds()
        start = time.perf_counter()
        try:
            child = subprocess.Popen(
                list(argv),
                cwd=cwd,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=err,
                start_new_session=True,
                env={**os.environ, **env} if env else None,
            )
        except OSError as error:
            return Proc(error=f"cannot start {argv[0]}: {error.strerror or error}")
        fired = threading.Event()
        sampler = _GroupRss(child.pid) if group_rss else None

        def expire() -> None:
            fired.set()
            _kill_group(child.pid)

        timer = threading.Timer(timeout, expire) if timeout else None
        if timer:
            timer.start()
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - start
        group_peak = sampler.stop() if sampler is not None else 0.0
        busy_after = _busy_seconds()
        if timer:
            timer.cancel()
        child.returncode = os.waitstatus_to_exitcode(status)
        _kill_group(child.pid)  # workers left behind by a killed or careless parent
    proc = Proc(wall=wall, cpu=usage.ru_utime + usage.ru_stime, rss_mb=_peak_kb(rss_path, usage.ru_maxrss) / 1024)
    proc.group_rss_mb = group_peak
    if busy_before is not None and busy_after is not None and wall > 0:
        # Everything the CPUs did meanwhile, less this child's share: other sessions' tests skew timings.
        other = busy_after - busy_before - proc.cpu
        proc.other_busy = max(other, 0.0) / (wall * (os.cpu_count() or 1))
    proc.stdout = out_path.read_text(errors="replace")
    if fired.is_set():
        proc.timed_out = True
    elif child.returncode in ok_codes:
        proc.rc = child.returncode
    else:
        last = err_path.read_text(errors="replace").strip().splitlines()[-3:]
        proc.error = f"exit status {child.returncode}: {' / '.join(last) or 'no message'}"
    for path in (out_path, err_path, rss_path):
        path.unlink(missing_ok=True)
    return proc


class _GroupRss:
    """The peak of the summed RSS of the processes of one session (Linux ``/proc``), sampled
    from a thread: the checker's main process, its forker and its workers together."""

    def __init__(self, session: int, interval: float = 0.05) -> None:
        self.session = session
        self.interval = interval
        self.peak = 0.0
        self._done = threading.Event()
        self._page = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()

    def stop(self) -> float:
        """The peak in MB."""
        self._done.set()
        self._thread.join()
        return self.peak / (1024 * 1024)

    def _sample(self) -> None:
        while not self._done.wait(self.interval):
            self.peak = max(self.peak, self._now())

    def _now(self) -> float:
        total = 0
        for entry in os.listdir("/proc") if os.path.isdir("/proc") else ():
            if not entry.isdigit():
                continue
            try:
                fields = Path(f"/proc/{entry}/stat").read_text().rpartition(")")[2].split()
            except OSError:
                continue  # gone meanwhile
            if len(fields) > 21 and int(fields[3]) == self.session:
                total += int(fields[21]) * self._page
        return total


def _peak_kb(rss_path: Path, fallback: int) -> int:
    """GNU time's peak RSS (its last line; a line about the exit status may come first)."""
    try:
        return int(rss_path.read_text().split()[-1])
    except (OSError, ValueError, IndexError):
        return fallback


def _kill_group(pgid: int) -> None:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def capture(argv: Sequence[str], cwd: Path, timeout: float = 600) -> str | None:
    """The standard output of a short helper command, or None when it fails."""
    try:
        done = subprocess.run(list(argv), cwd=cwd, capture_output=True, text=True, timeout=timeout)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def _busy_seconds() -> float | None:
    """CPU seconds the whole machine has been busy since boot (/proc/stat), or None off Linux."""
    try:
        fields = [int(value) for value in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    except (OSError, ValueError):
        return None
    return (sum(fields[:8]) - fields[3] - fields[4]) / os.sysconf("SC_CLK_TCK")


def cpu_busy(interval: float = 2.0) -> float | None:
    """The fraction of all cores busy over ``interval`` seconds (from /proc/stat), or None off Linux."""

    before = _busy_seconds()
    time.sleep(interval)
    after = _busy_seconds()
    if before is None or after is None:
        return None
    return (after - before) / (interval * (os.cpu_count() or 1))


def wait_quiet(max_wait: float, threshold: float = 0.1) -> float | None:
    """Wait up to ``max_wait`` seconds for the other processes on the machine to go quiet.

    Returns the last busy fraction seen; timings taken while something else runs are noise.
    """
    deadline = time.monotonic() + max_wait
    busy = cpu_busy()
    while busy is not None and busy > threshold and time.monotonic() < deadline:
        log(f"machine {busy:.0%} busy with other work; waiting (up to {max_wait:.0f} s in all)")
        time.sleep(10)
        busy = cpu_busy()
    return busy


def python_files(root: Path) -> list[Path]:
    """Every ``*.py`` file under ``root``, sorted, skipping the directories aigcheck skips."""
    found: list[Path] = []
    for directory, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(name for name in dirnames if name not in SKIPPED_DIRS)
        found.extend(Path(directory, name) for name in filenames if name.endswith(".py"))
    return sorted(found)


def count(files: Sequence[Path], needle: bytes) -> tuple[int, int, list[Path]]:
    """Total lines and bytes of ``files``, and those whose text contains ``needle``."""
    lines = size = 0
    mentioning: list[Path] = []
    for path in files:
        data = path.read_bytes()
        size += len(data)
        lines += data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)
        if needle in data:
            mentioning.append(path)
    return lines, size, mentioning


#: Read every ``*.py`` file's bytes once, in-process timing printed as JSON (the read floor).
READ_SCRIPT = """
import json, os, sys, time
skip = set(json.loads(sys.argv[2]))
wall, cpu = time.perf_counter(), time.process_time()
n = size = 0
for d, dirs, names in os.walk(sys.argv[1]):
    dirs[:] = [x for x in dirs if x not in skip]
    for name in names:
        if name.endswith(".py"):
            with open(os.path.join(d, name), "rb") as f:
                size += len(f.read())
            n += 1
print(json.dumps({"wall": time.perf_counter() - wall, "cpu": time.process_time() - cpu, "files": n, "bytes": size}))
"""

#: Parse every file listed in argv[1] with ``libcst.parse_module``; import and parse timed apart.
PARSE_SCRIPT = """
import json, sys, time
wall = time.perf_counter()
import libcst
imported = time.perf_counter() - wall
paths = open(sys.argv[1]).read().split("\\n")
wall, cpu, failed = time.perf_counter(), time.process_time(), 0
for path in paths:
    with open(path, "rb") as f:
        data = f.read()
    try:
        libcst.parse_module(data)
    except Exception:
        failed += 1
print(json.dumps({"import": imported, "wall": time.perf_counter() - wall, "cpu": time.process_time() - cpu,
                  "failed": failed}))
"""


def read_floor(python: str, root: Path, cwd: Path) -> tuple[Proc, dict[str, float]]:
    """The read floor as a process, and as timed inside that process."""
    proc = run_child([python, "-c", READ_SCRIPT, str(root), json.dumps(sorted(SKIPPED_DIRS))], cwd=cwd)
    return proc, json.loads(proc.stdout) if proc.ok else {}


def libcst_parse(python: str, list_file: Path, cwd: Path) -> tuple[Proc, dict[str, float]]:
    proc = run_child([python, "-c", PARSE_SCRIPT, str(list_file)], cwd=cwd)
    return proc, json.loads(proc.stdout) if proc.ok else {}


def snapshot(python: str, repo: Path, rev: str, workdir: Path) -> tuple[list[str] | None, str]:
    """An aigcheck command running the ``checker`` package as committed at ``rev``, and that commit.

    The editable install follows the working tree, which may change during a long run.
    """
    sha = capture(["git", "-C", str(repo), "rev-parse", "--verify", f"{rev}^{{commit}}"], workdir)
    if sha is None:
        return None, f"git cannot resolve {rev!r}"
    target = workdir / f"checker-{sha[:12]}"
    if not (target / "checker" / "__main__.py").exists():
        target.mkdir(parents=True, exist_ok=True)
        archive = target / "checker.tar"
        with open(archive, "wb") as out:
            done = subprocess.run(["git", "-C", str(repo), "archive", sha, "checker"], stdout=out, check=False)
        if done.returncode != 0:
            return None, f"git archive {sha[:12]} failed"
        with tarfile.open(archive) as tar:
            tar.extractall(target, filter="data")
        archive.unlink()
        # Byte-compiled, as pip installs it (PYTHONDONTWRITEBYTECODE would otherwise make
        # every run compile the checker's sources again).
        subprocess.run([python, "-m", "compileall", "-q", str(target / "checker")], check=False)
    # sys.path first: the editable install's finder comes after the path finder.
    code = f"import runpy, sys; sys.path.insert(0, {str(target)!r}); runpy.run_module('checker', run_name='__main__')"
    return [python, "-c", code], sha[:12]


def fetch_wheel(python: str, requirement: str, workdir: Path) -> tuple[Path | None, str | None]:
    """Download ``name==version`` without dependencies (once) and unpack it; the package directory."""
    name, version = requirement.split("==")
    wheels = workdir / "wheels"
    wheels.mkdir(parents=True, exist_ok=True)
    pattern = f"{name.replace('-', '_')}-{version}-*.whl"
    if not sorted(wheels.glob(pattern)):
        log(f"downloading {requirement} from PyPI")
        argv = [python, "-m", "pip", "download", "--quiet", "--no-deps", "--only-binary=:all:"]
        done = run_child([*argv, "--dest", str(wheels), requirement], cwd=workdir, timeout=600)
        if not done.ok:
            return None, f"download of {requirement} failed: {done.problem}"
    found = sorted(wheels.glob(pattern))
    if not found:
        return None, f"download of {requirement} produced no wheel"
    target = workdir / "trees" / f"{name}-{version}"
    stamp = target / ".unpacked"
    if not stamp.exists():
        log(f"unpacking {found[0].name}")
        try:
            with zipfile.ZipFile(found[0]) as wheel:
                wheel.extractall(target)
        except (OSError, zipfile.BadZipFile) as error:
            return None, f"cannot unpack {found[0].name}: {error}"
        stamp.touch()
    package = target / name.replace("-", "_")
    return (package, None) if package.is_dir() else (None, f"{found[0].name} has no {package.name}/ directory")


def torchfix_venv(python: str, requirement: str, workdir: Path) -> tuple[Path | None, str | None]:
    """A throwaway venv in the work dir with ``requirement`` (it pins its own libcst); its torchfix."""
    venv = workdir / "torchfix-venv"
    exe = venv / "bin" / "torchfix"
    stamp = venv / f".installed-{requirement}"
    if stamp.exists() and exe.exists():
        return exe, None
    log(f"installing {requirement} into {venv}")
    made = run_child([python, "-m", "venv", "--clear", str(venv)], cwd=workdir, timeout=300)
    if not made.ok:
        return None, f"cannot create a venv for TorchFix: {made.problem}"
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    done = run_child([*pip, requirement], cwd=workdir, timeout=600)
    if not done.ok or not exe.exists():
        return None, f"cannot install {requirement}: {done.problem or 'no torchfix command'}"
    stamp.touch()
    return exe, None
