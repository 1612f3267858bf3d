"""Many files: the cache answers unchanged files, workers parse the rest, order is kept."""

from __future__ import annotations

import contextlib
import io
import json
import threading
from pathlib import Path

import pytest

from checker.command import cli
from checker.passes.cache import Cache
from checker.passes.engine import LinkedReport
from checker.passes.schedule import Job, Options, check_files
from checker.rules import ALL_RULES

CODES = tuple(rule.code for rule in ALL_RULES if rule.default_enabled)
BAD = "import torch\nW = torch.ones(2)\n\n@torch.compiler.allow_in_graph\ndef f{n}(x):\n    return x * W\n"


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    for n in range(6):
        (tmp_path / f"m{n}.py").write_text(BAD.format(n=n))
    (tmp_path / "plain.py").write_text("x = 1\n")
    return tmp_path


def jobs(tree: Path) -> list[Job]:
    return [Job(str(path), path.name, CODES) for path in sorted(tree.glob("*.py"))]


def summary(reports: list) -> list[tuple[str, list[tuple[int, str]]]]:
    return [(r.path, [(f.line, f.code) for f in r.findings]) for r in reports]


def test_workers_give_the_same_reports_in_the_same_order(tree: Path) -> None:
    serial = list(check_files(jobs(tree), Options(workers=1)))
    parallel = list(check_files(jobs(tree), Options(workers=2)))
    assert summary(parallel) == summary(serial)
    assert [r.path for r in serial] == [*(f"m{n}.py" for n in range(6)), "plain.py"]
    assert all(r.findings for r in serial[:6])


def test_a_warm_run_is_answered_by_the_cache(tree: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    cache = Cache(tmp_path_factory.mktemp("cache"))
    cold = list(check_files(jobs(tree), Options(), cache))
    assert (cache.hits, cache.misses) == (0, 6)  # plain.py never reaches the cache: no registration
    warm = list(check_files(jobs(tree), Options(), cache))
    assert cache.hits == 6
    assert summary(warm) == summary(cold)
    assert [f.fingerprint for r in warm for f in r.findings] == [f.fingerprint for r in cold for f in r.findings]


def test_changed_content_or_rules_miss(tree: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    cache = Cache(tmp_path_factory.mktemp("cache"))
    list(check_files(jobs(tree), Options(), cache))
    (tree / "m0.py").write_text(BAD.format(n=0) + "\n# edited\n")
    list(check_files(jobs(tree), Options(), cache))
    assert cache.hits == 5
    fewer = [Job(job.path, job.display, ("AIG302",)) for job in jobs(tree)]
    reports = list(check_files(fewer, Options(), cache))
    assert cache.hits == 5 and not any(r.findings for r in reports)


def test_corrupt_entries_are_misses(tree: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    cache = Cache(tmp_path_factory.mktemp("cache"))
    list(check_files(jobs(tree), Options(), cache))
    for entry in cache.directory.rglob("*.json"):
        entry.write_text("{not json")
    reports = list(check_files(jobs(tree), Options(), cache))
    assert cache.hits == 0 and all(r.findings for r in reports[:6])


def test_fixing_bypasses_the_cache(tree: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    cache = Cache(tmp_path_factory.mktemp("cache"))
    list(check_files(jobs(tree), Options(fix=True), cache))
    assert not list(cache.directory.rglob("*.json"))


def test_racing_writers_never_leave_a_torn_entry(tree: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    cache = Cache(tmp_path_factory.mktemp("cache"))
    (report,) = [r for r in check_files(jobs(tree)[:1], Options())]
    key = "ab" * 32
    threads = [
        threading.Thread(target=lambda: [cache.put(key, LinkedReport(report)) for _ in range(50)]) for _ in range(4)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    entry = cache.directory / "1" / key[:2] / f"{key}.json"
    assert json.loads(entry.read_text())["path"] == report.path
    assert not [p for p in entry.parent.iterdir() if p.name.startswith(".tmp-")]


def test_cli_jobs_and_cache_flags(tree: Path, capsys: pytest.CaptureFixture[str], monkeypatch) -> None:
    monkeypatch.chdir(tree)
    assert cli.main(["--jobs", "2", "--cache-dir", "cache", "."]) == 1
    first = capsys.readouterr().out
    assert cli.main(["--jobs", "1", "--cache-dir", "cache", "."]) == 1
    assert capsys.readouterr().out == first
    assert (tree / "cache" / "CACHEDIR.TAG").exists()
    assert cli.main(["--jobs", "0", "."]) == 2
    assert "expected a whole number of at least 1" in capsys.readouterr().err


def test_automatic_garbage_collection_is_off_while_checking_and_restored_after(tree: Path, monkeypatch) -> None:
    import gc

    from checker.passes import schedule

    seen: list[bool] = []
    real_check = schedule.analyse_source
    monkeypatch.setattr(schedule, "analyse_source", lambda *a, **k: seen.append(gc.isenabled()) or real_check(*a, **k))
    assert gc.isenabled()
    list(check_files(jobs(tree), Options(workers=1)))
    assert seen == [False] * 6
    assert gc.isenabled()


def test_few_files_to_parse_start_no_workers(tree: Path, monkeypatch) -> None:
    from checker.passes import schedule

    started: list[int] = []
    monkeypatch.setattr(schedule, "Pool", lambda *args: started.append(1))
    few = [job for job in jobs(tree) if job.display in ("m0.py", "m1.py", "plain.py")]
    assert [bool(r.findings) for r in check_files(few, Options(workers=2))] == [True, True, False]
    assert started == []


def test_the_passes_of_a_run_share_one_set_of_workers(tmp_path: Path, monkeypatch) -> None:
    # Enough registering files for workers, and defs registered from another module: the pass
    # that checks their modules with those registrations reuses the workers the first pass started.
    from checker.passes import schedule

    for n in range(5):
        (tmp_path / "pkg").mkdir(exist_ok=True)
        (tmp_path / f"pkg/m{n}.py").write_text(BAD.format(n=n))
    (tmp_path / "pkg/__init__.py").write_text("")
    register = ["import torch"]
    for n in range(4):  # as many defining files as make a pass start workers of its own
        (tmp_path / f"pkg/k{n}.py").write_text("import torch\nW = torch.ones(2)\n\ndef scaled(x):\n    return x * W\n")
        register += [f"from .k{n} import scaled as s{n}", f"torch.compiler.allow_in_graph(s{n})"]
    (tmp_path / "pkg/register.py").write_text("\n".join(register) + "\n")
    monkeypatch.chdir(tmp_path)
    pools: list[object] = []
    real = schedule.Pool

    def counted(*args: object) -> object:
        pools.append(args)
        return real(*args)

    monkeypatch.setattr(schedule, "Pool", counted)

    def findings(*argv: str) -> list[tuple[str, int, str]]:
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            cli.main(["--isolated", "--no-cache", "--output-format", "json", *argv, "pkg"])
        return sorted((item["path"], item["line"], item["code"]) for item in json.loads(out.getvalue()))

    parallel = findings("--jobs", "2")
    assert len(pools) == 1
    assert [finding for finding in parallel if finding[0].startswith("pkg/k")] == [
        (f"pkg/k{n}.py", 5, "AIG301") for n in range(4)
    ]
    assert parallel == findings("--jobs", "1")


@pytest.mark.parametrize(
    ("text", "foreign"),
    [
        ("from .k import scaled\nimport torch\ntorch.compiler.allow_in_graph(scaled)\n", True),
        ("import torch\n\ndef scaled(x):\n    return x\n\ntorch.compiler.allow_in_graph(scaled)\n", False),
        ("import torch\n\n@torch.compiler.allow_in_graph\ndef scaled(x):\n    return x\n", False),
        ("import torch\n", False),
    ],
    ids=["imported", "defined-then-registered", "decorated", "no-registration"],
)
def test_a_file_that_registers_a_function_it_does_not_define_is_parsed_first(
    tmp_path: Path, text: str, foreign: bool
) -> None:
    """Its outcome hands registrations to the defining file, whose check waits for it."""
    from checker.index.reverse_scan import text_registrations
    from checker.passes.session import Session

    (tmp_path / "register.py").write_text(text)
    (tmp_path / "k.py").write_text("def scaled(x):\n    return x\n")
    assert text_registrations(str(tmp_path / "register.py")).foreign is foreign
    jobs = [Job(str(tmp_path / name), name, ("AIG301",)) for name in ("k.py", "register.py")]
    checked = Session(Options(workers=1)).check(jobs, lambda path: None)
    assert [(c.job.display, c.job.urgent) for c in checked] == [("k.py", False), ("register.py", foreign)]
