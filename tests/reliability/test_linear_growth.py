"""Work linear in the tree and in each file (issue 19): no text is searched once per
registered name, nor once per question another file asks.

Tests do not time things; they count the searches a regression to quadratic work would
multiply. Before the fix: each question about a module's name (does any file change
``TABLE``?) searched every file of the project, so 20,000 files took 15x the time of
5,000; a file registering 10,000 one-line defs was searched once per def in the main
process (30 s), and once per registered name of the project in a worker. The timed
figures are the benchmark's: ``.venv/bin/python benchmarks/scaling.py``.
"""

from __future__ import annotations

import ast
import cProfile
import gc
import os
import pickle
import sys
from collections import Counter
from collections.abc import Callable
from concurrent.futures import Future
from functools import partial
from pathlib import Path

import pytest
from projects import RULES, assert_marked, run, write

import checker.index.change_scan
import checker.passes.schedule
import checker.passes.session
from checker.facts.scopes.tree import Scope
from checker.index.change_scan import ChangeScans
from checker.index.project import Project
from checker.index.reverse_scan import registered_in, text_registrations
from checker.passes.containment import DEFAULT_LIMITS
from checker.passes.engine import check_path
from checker.passes.pool import Pool
from checker.passes.schedule import Job, Options, Workers, check_one
from checker.passes.session import Session
from checker.reading.discovery import DEFAULT_EXCLUDES
from checker.reading.mentions import may_register
from checker.reading.source import Prefilter

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import pathological  # noqa: E402 - the benchmarks folder is not a package


class _Searched(bytes):
    """A file's bytes that count the substring tests made of them (``needle in data``)."""

    counts: Counter[str]
    path: str

    def __contains__(self, needle: object) -> bool:
        self.counts[self.path] += 1
        return super().__contains__(needle)  # type: ignore[operator]


def _counting_reads(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """Make every file the project scans read as ``_Searched`` bytes; the counts, per file."""
    counts: Counter[str] = Counter()
    read = checker.index.change_scan.bytes_or_none

    def counted(path: Path) -> bytes:
        data = _Searched(read(path))
        data.counts, data.path = counts, str(path)
        return data

    monkeypatch.setattr(checker.index.change_scan, "bytes_or_none", counted)
    return counts


def _registering(root: Path) -> list[Path]:
    return sorted(path for path in root.rglob("*.py") if b"allow_in_graph" in path.read_bytes())


def test_the_questions_of_many_registering_files_search_each_file_a_bounded_number_of_times(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    most = []
    for files in (400, 800):
        # One registering file in 10, each asking whether any file changes the names it reads.
        root = tmp_path / str(files)
        pathological.project_tree(root, files, every=10)
        counts = _counting_reads(monkeypatch)
        index = Project()  # one process's, as in a worker
        for path in _registering(root):
            report = check_path(path, RULES, index=index)
            assert report.internal_error is None
            assert_marked(root, report.findings, path.relative_to(root).as_posix())
        assert len(counts) == files + files // 100 + 1  # every module and __init__.py was read
        most.append(max(counts.values()))
    # Before: each question searched every file, for its names and its modules (the most
    # searched file 404 times at 400 files, 804 times at 800).
    assert most[1] == most[0] <= 2 * checker.index.change_scan.SCANS_BEFORE_INDEX, f"searches of one file: {most}"


@pytest.mark.parametrize("defs", [200, 2_000])
def test_the_main_process_searches_a_file_of_many_registered_defs_a_few_times(defs: int, tmp_path: Path) -> None:
    path = tmp_path / "generated.py"
    path.write_text(pathological.decorated_registrations(defs), encoding="utf-8")
    found = []
    searches = _pattern_calls(lambda: found.append(text_registrations(str(path))), anchored=False)
    anchored = _pattern_calls(lambda: text_registrations(str(path)), anchored=True)
    assert len(found[0].names) == defs and not found[0].foreign
    # Before: one search of the whole file per registered def (202 and 2,002).
    assert searches <= 4, f"{defs} defs: {searches} regex searches of the file"
    # The registration patterns are tried at the lines that spell the registrar word only,
    # each pattern once a line at most: linear in the file.
    assert anchored <= 3 * defs + 3, f"{defs} defs: {anchored} anchored matches"


@pytest.mark.parametrize("names", [200, 2_000])
def test_a_worker_asks_of_a_file_whether_it_names_many_registered_functions_in_a_few_searches(names: int) -> None:
    text = pathological.call_arguments(50)
    registered = tuple(f"registered_{i}" for i in range(names))
    prefilter = Prefilter((), registered)
    assert len(prefilter.words) == names  # sorted out once per run, not per file
    answers = []
    searches = _pattern_calls(lambda: answers.append(may_register(ast.parse(text), text, prefilter)))
    assert answers == [True]
    # Before: one search of the whole text per registered name of the project.
    assert searches <= 8, f"{names} registered names: {searches} regex searches of the text"


def test_files_named_alone_share_one_reading_of_their_project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """pre-commit names every changed file: the project's registering files are scanned
    once for them all, not once per named file."""
    pathological.project_tree(tmp_path, 300, every=10)
    named = sorted(str(path) for path in tmp_path.rglob("m*.py"))[:60]
    scanned: Counter[int] = Counter()
    registered_in = checker.passes.session.registered_in

    def counted(data: bytes) -> set[str]:
        scanned[hash(data)] += 1
        return registered_in(data)

    monkeypatch.setattr(checker.passes.session, "registered_in", counted)
    Session(Options())._registered_imports(named)
    assert scanned and max(scanned.values()) == 1


def test_what_a_worker_is_sent_for_each_file_does_not_grow_with_the_registered_names(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The names go to each worker once, when it starts; before, every file's item carried
    them twice (50 KB per file with 2,500 registering files), and the worker sorted them
    out again for each file."""
    sent: list[object] = []

    class Recording:
        def __init__(self, *_: object) -> None:
            pass

        def submit(self, item: object, urgent: bool = False) -> Future[object]:
            sent.append(item)
            return Future()

        def shutdown(self, *_: object, **__: object) -> None:
            pass

    monkeypatch.setattr(checker.passes.schedule, "Pool", Recording)
    sizes = []
    for count in (10, 10_000):
        names = tuple(f"registered_{i}" for i in range(count))
        options = Options(prefilter=Prefilter((), names), registered=names, contained=True)
        workers = Workers(1, names)
        workers.submit((b"x = 1\n", Job("a.py", "a.py", ("AIG301",)), options))
        workers.close()
        sizes.append(len(pickle.dumps(sent[-1])))
    assert sizes[1] == sizes[0]


def test_files_handed_registrations_through_a_linked_tree_are_found_without_a_search_of_the_jobs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The checked tree is reached through a link, so the files that registrations are
    handed to (named by their real paths) are not found among the jobs by name: each was
    compared with every job (two stats each), work that grew with the tree times the
    hand-offs. Now the jobs are known by file identity, once."""
    count = 60
    files = {"real/pkg/__init__.py": ""}
    for i in range(count):
        files[f"real/pkg/d{i}.py"] = f"W{i} = 1.0\n\n\ndef helper_{i}(x):\n    return x\n"
    imports = "".join(f"from .d{i} import helper_{i}\n" for i in range(count))
    calls = "".join(f"torch.compiler.allow_in_graph(helper_{i})\n" for i in range(count))
    files["real/pkg/register.py"] = f"import torch\n\n{imports}\n{calls}"
    write(tmp_path, files)
    (tmp_path / "link").symlink_to(tmp_path / "real", target_is_directory=True)
    stats = Counter[str]()
    stat, position = os.stat, checker.passes.session._Targets._position
    inside = []

    def counted_stat(path: object, *args: object, **kwargs: object) -> os.stat_result:
        if inside:
            stats["stat"] += 1
        return stat(path, *args, **kwargs)  # type: ignore[arg-type]

    def counted_position(self: object, path: str) -> int | None:
        inside.append(path)
        try:
            return position(self, path)  # type: ignore[arg-type]
        finally:
            inside.pop()

    monkeypatch.setattr(os, "stat", counted_stat)
    monkeypatch.setattr(checker.passes.session._Targets, "_position", counted_position)
    status, _ = run("--isolated", "--no-cache", str(tmp_path / "link" / "pkg"))
    assert status in (0, 1)
    # One stat per job and per path looked up; before: two per job for every lookup (7,560 here).
    assert 0 < stats["stat"] <= 4 * (count + 2), stats


def test_many_registrations_handed_to_one_file_are_gathered_once_each(tmp_path: Path) -> None:
    """register.py registers 1,500 functions of kernels.py: each registration handed over was
    compared with every one gathered before it (a list), and the early check of kernels.py
    was remade for every one of them."""
    count = 1_500
    # f0 reads a tensor of its module: AIG301 there, found only through the hand-off.
    kernels = "import torch\n\nW = torch.ones(3)\n\n\ndef f0(x):\n    return x * W\n\n\n"
    kernels += "".join(f"def f{i}(x):\n    return x\n\n\n" for i in range(1, count))
    imports = "".join(f"from .kernels import f{i}\n" for i in range(count))
    calls = "".join(f"torch.compiler.allow_in_graph(f{i})\n" for i in range(count))
    write(
        tmp_path,
        {"pkg/__init__.py": "", "pkg/kernels.py": kernels, "pkg/register.py": f"import torch\n\n{imports}\n{calls}"},
    )
    profile = cProfile.Profile()
    profile.enable()
    status, findings = run("--isolated", "--no-cache", str(tmp_path / "pkg"))
    profile.disable()
    profile.create_stats()
    assert status == 1
    assert [(Path(finding.path).name, finding.line, finding.code) for finding in findings] == [
        ("kernels.py", 7, "AIG301")
    ]
    compared = sum(
        stat[1]
        for (filename, _, name), stat in profile.stats.items()  # type: ignore[attr-defined]
        if name == "__eq__" and "dataclasses" not in filename
    )
    # Before: about count**2 comparisons of registrations (2,248,500 here).
    assert compared <= 10 * count, f"{compared} comparisons of registrations"


def test_the_files_a_project_scan_keeps_add_nothing_to_each_collection(tmp_path: Path) -> None:
    """A worker keeps every file of the project for the questions about changes, and frees
    dropped modules by full collections, one every 16 modules: were the files kept as
    objects the collector tracks (a path object, its parts, a pair), each collection would
    cost more as the tree grows, and their number grows with it too."""
    tracked = []
    for files in (400, 800):
        root = tmp_path / str(files)
        pathological.project_tree(root, files, every=10)
        module = root / "proj" / "sub0" / "m0.py"
        gc.collect()
        before = len(gc.get_objects())
        scans = ChangeScans(DEFAULT_EXCLUDES)
        for question in range(checker.index.change_scan.SCANS_BEFORE_INDEX + 2):  # the index made too
            scans.change(module, f"NAME_{question}", own=True, rebinding=False)
        gc.collect()
        tracked.append(len(gc.get_objects()) - before)
        del scans
    # Before: three more per file (1,200 more at 800 files than at 400).
    assert tracked[1] - tracked[0] < 50, tracked


def test_a_worker_keeps_a_bounded_number_of_modules_however_many_files_call_registered_functions(
    tmp_path: Path,
) -> None:
    """Each call of a function registered in another module is judged against that
    registration. The answer was kept per (caller, name) for the worker's life, and with
    it the registering module's facts (scopes, syntax tree) after the bounded cache of
    parsed modules had let the module go: memory, and the cost of every full collection,
    grew with the tree."""
    alive = []
    for files in (600, 1_200):
        root = tmp_path / str(files)
        pathological.project_tree(root, files, every=10)
        paths = sorted(path for path in root.rglob("*.py") if b"reg_" in path.read_bytes())
        names = tuple(sorted(set().union(*(registered_in(path.read_bytes()) for path in paths))))
        index = Project(frozenset(names))
        options = Options(prefilter=Prefilter((), names), registered=names)
        codes = tuple(rule.code for rule in RULES)
        for path in paths:
            outcome = check_one(path.read_bytes(), Job(str(path), str(path), codes), options, index)
            assert outcome.report.internal_error is None
        del outcome
        gc.collect()
        alive.append(sum(type(thing) is Scope for thing in gc.get_objects()))
        del index
    # Before: 120 more scopes alive at 1,200 files than at 600 (288 and 408).
    assert alive[1] - alive[0] < 50, alive


def test_a_worker_leaves_what_it_starts_with_out_of_its_collections() -> None:
    """What a worker imported and inherited stays for its life: frozen out of the full
    collections that free dropped modules, which then cost only the live work."""
    pool: Pool[int, int] = Pool(1, partial(checker.passes.schedule._start_worker, (), DEFAULT_LIMITS), _frozen)
    try:
        assert pool.submit(0).result(timeout=120) > 1_000
    finally:
        pool.shutdown()


def _frozen(_: int) -> int:
    return gc.get_freeze_count()


def _pattern_calls(work: Callable[[], object], anchored: bool | None = None) -> int:
    """How many searches ``work()`` makes with compiled patterns (cProfile counts the
    calls of C methods exactly, whatever the machine's load); ``anchored``: only the
    matches at a given place (``Pattern.match``), or (False) all but those."""
    profile = cProfile.Profile()
    profile.enable()
    work()
    profile.disable()
    profile.create_stats()
    return sum(
        stat[1]
        for (_, _, name), stat in profile.stats.items()  # type: ignore[attr-defined]
        if "of 're.Pattern' objects" in name
        and (anchored is None or anchored == name.startswith("<method 'match' "))
    )
