"""Registrations made before the guard started.

``install()`` after a package registered its functions through torch's ``allow_in_graph``
(or ``set_strict("warn")`` after ``install()`` in ``off`` mode) would otherwise guard
nothing and say nothing. Dynamo keeps what was registered as ids only
(``torch._dynamo.trace_rules._allowed_callable_ids``, in torch 2.13 and 2.14 alike; a
``weakref.finalize`` removes an id when its object dies), so the objects are looked for
among those the garbage collector tracks, and only when the set holds an id the guard
does not know. Left alone: torch's own registrations (``torch.nn.attention.bias``
registers ``torch.backends.cuda.can_use_flash_attention``), and the ids that
``nonstrict_trace`` and ``leaf_function`` put in the same set.
"""

from __future__ import annotations

import gc
import weakref
from collections.abc import Sequence

from torch._dynamo import trace_rules

from runtime_guard import contained

#: At most this many registrations are named in the warning; the rest are counted.
NAMED = 8

#: Torch's own registrations, looked at once (held weakly: an id is only theirs while they live).
_ignored: dict[int, weakref.ref[object]] = {}
#: The ids :func:`baseline` saw, less those torch has dropped since.
_baseline: set[int] = set()


class LateGuardWarning(UserWarning):
    """The guard started after some registrations were made: they were checked when it
    started, but their calls are not guarded (their callers hold torch's objects)."""


def _ids(table_name: str) -> set[int]:
    """The ids in one of Dynamo's id tables (empty where this torch has no such table)."""
    table = getattr(trace_rules, table_name, None)
    try:
        return set(table()) if table is not None else set()
    except Exception:  # noqa: BLE001 - another torch: nothing known rather than a failure
        return set()


def baseline() -> None:
    """Count every registration torch holds now as known: a later ``install()`` or
    ``set_strict()`` checks only those made after this call. For a test suite whose tests
    must not meet the registrations earlier tests left alive (``tests/runtime_guard/conftest.py``)."""
    _baseline.clear()
    _baseline.update(_ids("_allowed_callable_ids"))


def _unknown(known: set[int]) -> set[int]:
    allowed = _ids("_allowed_callable_ids")
    _baseline.intersection_update(allowed)  # an id torch dropped may come back as another object's
    not_allow_in_graph = _ids("_nonstrict_trace_callable_ids") | _ids("_leaf_function_ids")
    ignored = {key for key, ref in _ignored.items() if ref() is not None}
    return allowed - not_allow_in_graph - ignored - _baseline - known


def _torch_own(obj: object) -> bool:
    module = contained.attribute(obj, "__module__")
    return isinstance(module, str) and module.partition(".")[0] == "torch"


def earlier_registrations(known: set[int]) -> list[object]:
    """The live objects torch's ``allow_in_graph`` registered whose ids are not in
    ``known`` (the guard's), torch's own excepted."""
    if not _unknown(known):
        return []
    gc.collect()  # a dead function's id leaves Dynamo's set only once it is collected
    unknown = _unknown(known)
    found: list[object] = []
    for obj in gc.get_objects():
        if id(obj) not in unknown or not callable(obj):
            continue
        if not _torch_own(obj):
            found.append(obj)
            continue
        try:
            _ignored[id(obj)] = weakref.ref(obj)
        except TypeError:
            pass
    return found


def warning(started_by: str, named: Sequence[tuple[str, str]]) -> LateGuardWarning:
    """The one warning for registrations made before ``started_by`` (``"install()"``),
    given their names and sites."""
    listed = ", ".join(f"{name} ({site})" for name, site in named[:NAMED])
    more = f" and {len(named) - NAMED} more" if len(named) > NAMED else ""
    return LateGuardWarning(
        f"{started_by}: {len(named)} allow_in_graph registration(s) made before the guard started were checked "
        f"now, but their calls are not guarded: {listed}{more}; set AIGCHECK_STRICT and call "
        "runtime_guard.install() at the top of your package, before it registers them"
    )
