"""One run's checking of many files: the project index, the cache, and the passes that
cross modules.

A file's report can depend on other files of the project in two ways the first pass
cannot see, and each is settled by one more pass over what the first one found:

- aliases: a module that binds a registrar to a name of its own (``register =
  allow_in_graph``) makes the files that mention that name candidates, although the
  text pre-filter skipped them;
- registrations made elsewhere: ``allow_in_graph(scaled)`` in register.py, with
  ``scaled`` defined in kernels.py, hands the registration to kernels.py, which is
  checked again with it, so that its findings point at its own lines. A defining file
  that was not among the checked ones is checked too, unless the run excludes it.

A file named on its own (pre-commit passes only the changed files; an editor checks one
buffer) is judged as the project sees it: the other files of its project that could
register its defs (they mention the API, or an alias of it, and the file's module name)
are checked too, for their registrations only; their own findings are not reported.

The session owns these passes, and the project index that files checked in this
process read other modules through (worker processes keep their own).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, replace
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from checker.index.outlines import Outlines
from checker.index.reverse_scan import may_register_from, registered_in, text_registrations
from checker.passes.cache import Cache
from checker.passes.engine import FileReport, LinkedReport, new_index
from checker.passes.schedule import Job, Options, Workers, check_one, check_outcomes
from checker.reading.discovery import DEFAULT_EXCLUDES
from checker.reading.exhaustive import exhaustive
from checker.reading.forms import REGISTRAR_WORD
from checker.reading.packages import import_name, project_files, project_root
from checker.reading.source import PREFILTER, WORDS, Prefilter, Unanalysable, decode, python_gate, read_source
from checker.spec.links import Elsewhere

if TYPE_CHECKING:
    from checker.index.project import Project
    from checker.passes.forker import Forker

#: Makes the job for a file the first pass did not check (a path as discovered), or None
#: when the run excludes it.
JobFor = Callable[[str], "Job | None"]


@dataclass(frozen=True)
class CheckedFile:
    """One file's final report, and its job as the session ran it (the codes, the
    registrations made elsewhere, whether it handed some off)."""

    job: Job
    report: FileReport

    @property
    def path(self) -> str | None:
        """Where the file was read (None: standard input); ``report.path`` is how findings show it."""
        return self.job.path or None


class Session:
    def __init__(
        self,
        options: Options,
        cache: Cache | None = None,
        progress: Callable[[int, int], None] | None = None,
        forker: Forker | None = None,
    ) -> None:
        self.options = options
        self.cache = cache
        self.progress = progress
        #: Where the workers fork from, the analysis imported (else from this process).
        self.forker = forker
        self._files: dict[Path, list[str]] = {}
        self._mentioning: dict[Path, dict[str, bytes]] = {}
        self._registered: dict[Path, frozenset[bytes]] = {}
        #: The worker processes every pass of a call shares (started by the first that needs them).
        self._workers: Workers | None = None

    @cached_property
    def index(self) -> Project:
        """The project index of this process, made on first use: a run answered from the
        cache imports no analysis."""
        return new_index(self.options.registered)

    def check(self, jobs: Sequence[Job], job_for: JobFor, named: Sequence[str] = ()) -> list[CheckedFile]:
        """Every job's final report, in order, then those of the defining files that only
        registrations made elsewhere brought in. ``named``: the files named on their own,
        whose project is searched for registrations of their defs."""
        imported = self._registered_imports(named)
        scans = [text_registrations(job.path) for job in jobs]
        names = tuple(sorted(imported.union(*(scan.names for scan in scans))))
        checked = [replace(job, hands_off=True) if scan.foreign else job for job, scan in zip(jobs, scans, strict=True)]
        # The files that import one of them are candidates of the first pass too (their calls are judged),
        # and those that name a registrar of an installed package, which no pass checks.
        installed = sorted(set().union(*(scan.registrars for scan in scans)) - set(self.options.prefilter.aliases))
        prefilter = Prefilter((*self.options.prefilter.aliases, *installed), names)
        self.options = replace(self.options, registered=names, prefilter=prefilter)
        with self._sharing_workers(), ThreadPoolExecutor(max_workers=1) as early:
            # Only where every parse is a worker's: this process's index is not shared between threads.
            begin = (lambda jobs: early.submit(self._again, jobs, self.options)) if self.options.contained else None
            targets = _Targets(checked, job_for)
            handoffs = _EarlyHandoffs(targets, begin)
            outcomes: list[LinkedReport] = []
            positions = {job: i for i, job in enumerate(checked)}
            for outcome in check_outcomes(
                checked,
                self.options,
                self.cache,
                self.progress,
                lambda: self.index,
                self._workers,
                lambda job, outcome: handoffs.note(outcome, positions[job]),
            ):
                handoffs.note(outcome, len(outcomes))
                outcomes.append(outcome)
            self._widen_for_aliases(checked, outcomes)
            registering = self._registering(named, checked, job_for)
            self._hand_off(outcomes, targets, registering, handoffs)
        return [CheckedFile(job, outcome.report) for job, outcome in zip(checked, outcomes, strict=True)]

    @contextmanager
    def _sharing_workers(self) -> Iterator[None]:
        self._workers = Workers(self.options.workers, self.options.registered, self.options.limits, self.forker)
        try:
            yield
        finally:
            self._workers.close()
            self._workers = None

    def check_bytes(self, data: bytes, job: Job) -> FileReport:
        """The report of bytes not read from ``job``'s path (standard input), checked as the
        session's files are: when contained, in a worker process of its own, so that a
        parser crash costs only this file."""
        if not self.options.contained:
            return check_one(data, job, self.options, self.index).report
        workers = Workers(1, self.options.registered, self.options.limits)
        try:
            return workers.alone((data, job, self.options)).report
        finally:
            workers.close()

    def registered_elsewhere(self, path: str, job_for: JobFor) -> tuple[Elsewhere, ...]:
        """The registrations of the defs of the file ``path`` (read from standard input)
        that the other files of its project make."""
        target = os.path.abspath(path)
        found = [
            registration
            for outcome in self._registering([path], [], job_for)
            for where, registration in outcome.links.handoffs
            if where == target
        ]
        return tuple(dict.fromkeys(found))

    def _registering(self, named: Sequence[str], checked: Sequence[Job], job_for: JobFor) -> list[LinkedReport]:
        """The outcomes of the files of the named files' projects that could register their
        defs, other than the checked ones."""
        done = {os.path.abspath(job.path) for job in checked}
        wanted: dict[str, set[Path]] = {}  # candidate file -> the named modules it may register defs of
        roots: set[Path] = set()
        for path in named:
            root = project_root(Path(path))
            if root is None:
                continue
            roots.add(root)
            for candidate in self._mentioning_api(root):
                if candidate not in done and candidate != os.path.abspath(path):
                    wanted.setdefault(candidate, set()).add(Path(path))
        found = self._check_mentioning(wanted, (PREFILTER,), self.options, job_for)
        aliases = _unspelled_aliases(found)
        if aliases:  # ``register = allow_in_graph`` in a utils module: the files naming ``register`` too
            needles = tuple(name.encode() for name in aliases)
            rest: dict[str, set[Path]] = {}
            for path in named:
                root = project_root(Path(path))
                if root is None:
                    continue
                for absolute in self._files_of(root):
                    if (
                        absolute not in done
                        and absolute not in self._mentioning_api(root)
                        and absolute != os.path.abspath(path)
                    ):
                        rest.setdefault(absolute, set()).add(Path(path))
            found += self._check_mentioning(
                rest, needles, replace(self.options, prefilter=Prefilter(tuple(aliases))), job_for
            )
        return found

    def _files_of(self, root: Path) -> list[str]:
        """Every file of the project under ``root`` (absolute paths), listed once per run
        however many of its files are named."""
        if root not in self._files:
            self._files[root] = [os.path.abspath(path) for path in project_files(root, DEFAULT_EXCLUDES)]
        return self._files[root]

    def _mentioning_api(self, root: Path) -> dict[str, bytes]:
        """The files of the project under ``root`` that mention the API (absolute path -> bytes),
        read once per run: the reverse scan and the registered functions both start there."""
        if root not in self._mentioning:
            self._mentioning[root] = {
                path: data for path in self._files_of(root) if (data := _read_mentions(path, (PREFILTER,))) is not None
            }
        return self._mentioning[root]

    def _registered_in(self, root: Path) -> frozenset[bytes]:
        """The names of the functions the project under ``root`` registers at a top level (a
        text scan of the files mentioning the API, once per run)."""
        if root not in self._registered:
            names = set().union(*(registered_in(data) for data in self._mentioning_api(root).values()))
            self._registered[root] = frozenset(name.encode() for name in names)
        return self._registered[root]

    def _registered_imports(self, named: Sequence[str]) -> set[str]:
        """The names the files named alone import from their project that the project
        registers at a top level (a text scan; no parse but of the named files' imports):
        their calls are judged even when no file that registers them is checked."""
        found: set[str] = set()
        outlines = Outlines(limit=64)
        for path in named:
            root = project_root(Path(path))
            if root is None:
                continue
            registered = self._registered_in(root)
            try:
                text = read_source(path)
            except OSError:
                continue
            # (An import spells the name as a word; the words of the text, not a search per name.)
            if text is None or not registered or registered.isdisjoint(WORDS.findall(text)):
                continue  # it names none of them: no parse
            for bound, qualified in outlines.imports(Path(path)).items():
                if qualified.rpartition(".")[2].encode() in registered:
                    found.add(bound)
        return found

    def _check_mentioning(
        self, wanted: dict[str, set[Path]], needles: tuple[bytes, ...], options: Options, job_for: JobFor
    ) -> list[LinkedReport]:
        real = {module: module.resolve() for modules in wanted.values() for module in modules}  # once each
        jobs = [
            job
            for candidate, modules in sorted(wanted.items())
            if _may_register(candidate, modules, needles, real) and (job := job_for(candidate)) is not None
        ]
        return self._again(jobs, options) if jobs else []

    def _again(self, jobs: Sequence[Job], options: Options) -> list[LinkedReport]:
        return list(check_outcomes(jobs, options, self.cache, index=lambda: self.index, workers=self._workers))

    def _widen_for_aliases(self, jobs: list[Job], outcomes: list[LinkedReport]) -> None:
        """Check again the skipped files that mention an alias the first pass found, or
        import a function it found registered that the text scan before it did not."""
        aliases = _unspelled_aliases(outcomes)
        known = set(self.options.prefilter.imported)
        registered = {name for outcome in outcomes for name in outcome.links.registered}
        if not aliases and registered <= known:
            return
        prefilter = Prefilter(tuple(aliases), tuple(sorted(registered - known)))
        wider = replace(self.options, prefilter=prefilter)
        again = []
        for i, outcome in enumerate(outcomes):
            if outcome.report.parsed or outcome.report.findings:
                continue
            job = _only_calls(jobs[i], prefilter)
            if job is not None:
                again.append((i, job))
        for (i, _), outcome in zip(again, self._again([job for _, job in again], wider), strict=True):
            outcomes[i] = outcome

    def _hand_off(
        self,
        outcomes: list[LinkedReport],
        targets: _Targets,
        registering: Sequence[LinkedReport] = (),
        early: _EarlyHandoffs | None = None,
    ) -> None:
        """Check again the files whose defs and classes other files register, with those
        registrations (``targets``: the jobs, one per outcome, to which a file not checked
        is added; ``registering``: outcomes of files checked for their registrations only);
        ``early``: the hand-offs begun during the first pass, used where they are the very
        jobs wanted."""
        wanted = _handoffs((*outcomes, *registering))
        if not wanted:
            return
        jobs = targets.jobs
        again: list[tuple[int, Job]] = []
        for path, registrations in sorted(wanted.items()):
            i = targets.index(path)
            if i is None:
                continue
            if len(outcomes) < len(jobs):  # a file that was not checked
                outcomes.append(LinkedReport(FileReport(jobs[i].display)))
            again.append((i, replace(jobs[i], elsewhere=tuple(registrations))))
        begun = early.taken([job for _, job in again]) if early is not None else {}
        rest = [job for _, job in again if job not in begun]
        done = dict(zip(rest, self._again(rest, self.options), strict=True)) if rest else {}
        for i, job in again:
            outcomes[i] = begun[job] if job in begun else done[job]


def _unspelled_aliases(outcomes: Iterable[LinkedReport]) -> list[str]:
    """The registrar aliases the files export (``register = allow_in_graph``) that the text
    pre-filter cannot see: those not spelling the registrar word, which it searches for."""
    return sorted({name for outcome in outcomes for name in outcome.links.exports if REGISTRAR_WORD not in name})


def _handoffs(outcomes: Iterable[LinkedReport]) -> dict[str, list[Elsewhere]]:
    """The registrations the outcomes hand to each defining file, in the order found."""
    wanted: dict[str, dict[Elsewhere, None]] = {}
    for outcome in outcomes:
        _gather(wanted, outcome)
    return {path: list(registrations) for path, registrations in wanted.items()}


def _gather(wanted: dict[str, dict[Elsewhere, None]], outcome: LinkedReport) -> None:
    """Add the registrations ``outcome`` hands over to ``wanted`` (path -> registrations, in
    the order found: a dict keeps each once without comparing it with every other)."""
    for path, registration in outcome.links.handoffs:
        wanted.setdefault(path, {})[registration] = None


class _Targets:
    """Where a file handed registrations stands among the jobs (``index`` appends its job
    when it was not checked and the run does not exclude it)."""

    def __init__(self, jobs: list[Job], job_for: JobFor) -> None:
        self.jobs = jobs
        self.job_for = job_for
        self._checked = {os.path.abspath(job.path): i for i, job in enumerate(jobs)}  # no syscalls
        #: The jobs by file identity (device, inode), made at the first path not found by name.
        self._identities: dict[tuple[int, int], int] | None = None

    def index(self, path: str) -> int | None:
        i = self._position(path)
        if i is None:
            job = self.job_for(path)
            if job is None:
                return None
            self.jobs.append(job)
            i = self._checked[path] = len(self.jobs) - 1
            if self._identities is not None and (identity := _identity(job.path)) is not None:
                self._identities.setdefault(identity, i)
        return i

    def job(self, path: str) -> Job | None:
        """The job of the file as it stands now (none is added)."""
        i = self._position(path)
        return self.jobs[i] if i is not None else self.job_for(path)

    def _position(self, path: str) -> int | None:
        i = self._checked.get(path)
        if i is None:  # a symlinked tree, or a file that was not checked
            if self._identities is None:  # one stat per job, once, however many such paths
                self._identities = {}
                for n, job in enumerate(self.jobs):
                    if (identity := _identity(job.path)) is not None:
                        self._identities.setdefault(identity, n)
            identity = _identity(path)
            i = self._identities.get(identity) if identity is not None else None
        return i


class _EarlyHandoffs:
    """Hand-offs begun while the first pass still runs: as soon as an outcome hands a file
    registrations, that file is checked again with the registrations found so far, on a
    worker the first pass leaves idle, instead of after the whole pass. The run uses such a
    check only where it is exactly the job the full pass asks for (a later file may add
    registrations; the file is then checked again). An outcome may be noted before those of
    the jobs ahead of it, and again in its turn: the registrations are ordered by the job
    that found them, as the full pass orders them, whatever the order of noting."""

    def __init__(self, targets: _Targets, begin: Callable[[list[Job]], Future[list[LinkedReport]]] | None) -> None:
        self.targets = targets
        self.begin = begin
        #: defining file -> position of the job whose outcome hands it registrations -> those.
        self._wanted: dict[str, dict[int, dict[Elsewhere, None]]] = {}
        self._begun: dict[Job, Future[list[LinkedReport]]] = {}

    def note(self, outcome: LinkedReport, position: int) -> None:
        """``outcome`` is that of the job at ``position`` among the first pass's."""
        if self.begin is None or not outcome.links.handoffs:
            return
        for path, registration in outcome.links.handoffs:
            self._wanted.setdefault(path, {}).setdefault(position, {})[registration] = None
        for path in dict.fromkeys(path for path, _ in outcome.links.handoffs):  # each file once
            job = self.targets.job(path)
            if job is not None:
                found = self._wanted[path]
                registrations = dict.fromkeys(each for at in sorted(found) for each in found[at])
                job = replace(job, elsewhere=tuple(registrations))
                if job not in self._begun:
                    self._begun[job] = self.begin([job])

    def taken(self, jobs: Sequence[Job]) -> dict[Job, LinkedReport]:
        """The outcomes of those of ``jobs`` begun early."""
        return {job: self._begun[job].result()[0] for job in jobs if job in self._begun}


#: The rules a file that only imports a registered function can break: it registers
#: nothing, so only the arguments of its calls of the function are judged.
_CALL_RULES = frozenset({"AIG104"})


def _only_calls(job: Job, prefilter: Prefilter) -> Job | None:
    """The job for a file the first pass skipped: as it is when it mentions an alias of a
    registrar, with the call rules alone when it only imports a registered function, or
    None when it does neither (nothing to read again)."""
    try:
        data = read_source(job.path)
    except OSError:
        return job  # the check itself reports what is wrong
    if data is None:
        return job  # too large: the check reports it
    if prefilter.names_an_alias(data):  # (the API itself the first pass judged already)
        return job
    if not prefilter.imports(data):
        return None
    codes = tuple(code for code in job.codes if code in _CALL_RULES)
    return replace(job, codes=codes) if codes else None


def _may_register(path: str, modules: set[Path], needles: tuple[bytes, ...], real: Mapping[Path, Path]) -> bool:
    """Whether the file may register a def of one of ``modules`` (``real``: their real paths):
    it names a registrar (one of ``needles``) and one of the modules, and calls something
    with a name of it (any file of the project may, under the exhaustive switch)."""
    data = _read_mentions(path, needles)
    if exhaustive():
        return data is not None
    if data is None or not any(import_name(module).encode(errors="surrogateescape") in data for module in modules):
        return False
    if not any(re.search(re.escape(needle) + rb"\w*\s*\(", data) for needle in needles):
        return False  # no call of a registrar (a wrapper defined here calls one too)
    decoded = decode(data)  # as the full tier decodes it
    if isinstance(decoded, Unanalysable):
        return True  # let the full check say what is wrong with it
    gate = python_gate(decoded.text)
    if gate.tree is None:
        return gate.refused is None  # newer syntax than this interpreter's: libcst decides
    registrars = tuple(needle.decode() for needle in needles)
    return may_register_from(gate.tree, Path(path), {real[module] for module in modules}, registrars)


def _read_mentions(path: str, needles: tuple[bytes, ...]) -> bytes | None:
    """The file's bytes when they mention one of ``needles`` (or at all, under the exhaustive switch)."""
    try:
        data = read_source(path)
    except OSError:
        return None
    return data if data is not None and (exhaustive() or any(needle in data for needle in needles)) else None


def _identity(path: str) -> tuple[int, int] | None:
    """The file's device and inode (what ``os.path.samefile`` compares), None if it is gone."""
    try:
        status = os.stat(path)
    except OSError:
        return None
    return status.st_dev, status.st_ino
