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

The session owns these passes, and the project index that files checked in this
process read other modules through (worker processes keep their own).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import cached_property
from typing import TYPE_CHECKING

from checker.cache import Cache
from checker.engine import FileReport, Outcome, new_index
from checker.links import Elsewhere
from checker.schedule import Job, Options, check_outcomes
from checker.source import Prefilter

if TYPE_CHECKING:
    from checker.project import Project

#: Makes the job for a file the first pass did not check (a path as discovered), or None
#: when the run excludes it.
JobFor = Callable[[str], "Job | None"]


@dataclass(frozen=True)
class Checked:
    """One file's job and its final report."""

    job: Job
    report: FileReport


class Session:
    def __init__(
        self, options: Options, cache: Cache | None = None, progress: Callable[[int, int], None] | None = None
    ) -> None:
        self.options = options
        self.cache = cache
        self.progress = progress

    @cached_property
    def index(self) -> Project:
        """The project index of this process, made on first use: a run answered from the
        cache imports no analysis."""
        return new_index()

    def check(self, jobs: Sequence[Job], job_for: JobFor) -> list[Checked]:
        """Every job's final report, in order, then those of the defining files that only
        registrations made elsewhere brought in."""
        checked = list(jobs)
        outcomes = list(check_outcomes(checked, self.options, self.cache, self.progress, lambda: self.index))
        self._widen_for_aliases(checked, outcomes)
        self._hand_off(checked, outcomes, job_for)
        return [Checked(job, outcome.report) for job, outcome in zip(checked, outcomes, strict=True)]

    def _again(self, jobs: Sequence[Job], options: Options) -> list[Outcome]:
        return list(check_outcomes(jobs, options, self.cache, index=lambda: self.index))

    def _widen_for_aliases(self, jobs: list[Job], outcomes: list[Outcome]) -> None:
        """Check again the skipped files that mention an alias the first pass found."""
        aliases = sorted(
            {name for outcome in outcomes for name in outcome.links.exports if "allow_in_graph" not in name}
        )
        if not aliases:
            return
        again = [i for i, outcome in enumerate(outcomes) if not outcome.report.parsed and not outcome.report.findings]
        wider = replace(self.options, prefilter=Prefilter(tuple(aliases)))
        for i, outcome in zip(again, self._again([jobs[i] for i in again], wider), strict=True):
            outcomes[i] = outcome

    def _hand_off(self, jobs: list[Job], outcomes: list[Outcome], job_for: JobFor) -> None:
        """Check again the files whose defs and classes other files register, with those
        registrations."""
        wanted: dict[str, list[Elsewhere]] = {}
        for outcome in outcomes:
            for path, registration in outcome.links.handoffs:
                if registration not in wanted.setdefault(path, []):
                    wanted[path].append(registration)
        if not wanted:
            return
        checked = {os.path.abspath(job.path): i for i, job in enumerate(jobs)}  # no syscalls
        again: list[tuple[int, Job]] = []
        for path, registrations in sorted(wanted.items()):
            i = checked.get(path)
            if i is None:  # a symlinked tree, or a file that was not checked
                i = next((n for n, job in enumerate(jobs) if _same_file(job.path, path)), None)
            if i is None:
                job = job_for(path)
                if job is None:
                    continue
                jobs.append(job)
                outcomes.append(Outcome(FileReport(job.display)))
                i = len(jobs) - 1
            again.append((i, replace(jobs[i], elsewhere=tuple(registrations))))
        for (i, _), outcome in zip(again, self._again([job for _, job in again], self.options), strict=True):
            outcomes[i] = outcome


def _same_file(one: str, other: str) -> bool:
    try:
        return os.path.samefile(one, other)
    except OSError:
        return False
