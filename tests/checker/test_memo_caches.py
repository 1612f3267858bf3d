"""Caches of Python values are not state; caches of tensors are captured tensors
(evidence/dynamo/FINDINGS.md S§12).

Every spelling of a memo is written once, as a function of the value it caches: filled
with values computed from the key (``k * 2``) it gives no finding at all (no AIG302: what
was read never changes; no AIG501: filling it again stores the same value); filled with
tensors (``torch.ones(k)``) each read of the cache is AIG301, on the lines marked ``<T>``.
A memo that something clears, deletes from, rebinds or writes without looking it up is
state (AIG302), whatever it holds.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest
from projects import check, write

from checker.api import check_source
from checker.spec.markers import expected

#: A spelling of a memo: the module, where ``VALUE(key)`` stands for the value cached.
Spelling = str

_HEAD = """\
import functools

import torch
from torch.compiler import allow_in_graph

_C = {}
_D = {}
"""


def _value(key: str) -> str:
    return f"{key} * 2"


def _tensor(key: str) -> str:
    return f"torch.ones({key})"


def _module(spelling: Spelling, value: Callable[[str], str]) -> str:
    """The module of ``spelling`` caching ``value`` of each key."""
    return _HEAD + re.sub(r"VALUE\(([^()]*)\)", lambda match: value(match.group(1)), spelling)


SPELLINGS: dict[str, Spelling] = {
    "get-then-is-None": """
@allow_in_graph
def f(x, k: int):
    v = _C.get(k)  # <T>
    if v is None:
        v = VALUE(k)
        _C[k] = v  # <T>
    return x * v
""",
    "get-with-None-default": """
@allow_in_graph
def f(x, k: int):
    v = _C.get(k, None)  # <T>
    if v is None:
        v = VALUE(k)
        _C[k] = v  # <T>
    return x * v
""",
    "get-is-None-in-the-test": """
@allow_in_graph
def f(x, k: int):
    if _C.get(k) is None:  # <T>
        _C[k] = VALUE(k)  # <T>
    return x * _C[k]  # <T>
""",
    "walrus": """
@allow_in_graph
def f(x, k: int):
    if (v := _C.get(k)) is None:  # <T>
        v = _C[k] = VALUE(k)  # <T>
    return x * v
""",
    "not-in": """
@allow_in_graph
def f(x, k: int):
    if k not in _C:  # <T>
        _C[k] = VALUE(k)  # <T>
    return x * _C[k]  # <T>
""",
    "in-then-return": """
@allow_in_graph
def f(x, k: int):
    if k in _C:  # <T>
        return x * _C[k]  # <T>
    _C[k] = VALUE(k)  # <T>
    return x * _C[k]  # <T>
""",
    "in-else": """
@allow_in_graph
def f(x, k: int):
    if k in _C:  # <T>
        v = _C[k]  # <T>
    else:
        v = _C[k] = VALUE(k)  # <T>
    return x * v
""",
    "get-is-not-None-then-return": """
@allow_in_graph
def f(x, k: int):
    v = _C.get(k)  # <T>
    if v is not None:
        return x * v
    v = _C[k] = VALUE(k)  # <T>
    return x * v
""",
    "try-except-KeyError": """
@allow_in_graph
def f(x, k: int):
    try:
        return x * _C[k]  # <T>
    except KeyError:
        v = _C[k] = VALUE(k)  # <T>
        return x * v
""",
    "setdefault": """
@allow_in_graph
def f(x, k: int):
    return x * _C.setdefault(k, VALUE(k))  # <T>
""",
    "a-derived-key": """
@allow_in_graph
def f(x, n: int, m: int):
    key = (n, m)
    if key not in _C:  # <T>
        _C[key] = VALUE(n + m)  # <T>
    return x * _C[key]  # <T>
""",
    "a-loop-over-keys-fills-then-returns": """
@allow_in_graph
def f(x, n: int):
    for k in range(n):
        if k not in _C:  # <T>
            _C[k] = VALUE(k)  # <T>
    return x * _C[n - 1]  # <T>
""",
    "a-loop-builds-the-value": """
@allow_in_graph
def f(x, k: int):
    if k not in _C:  # <T>
        total = 0
        parts = []
        for i in range(k):
            total += i
            parts.append(VALUE(i))
        _C[k] = (total, parts)  # <T>
    return x * len(_C[k])  # <T>
""",
    "two-caches-filled-by-one-lookup": """
@allow_in_graph
def f(x, k: int):
    if k not in _C:  # <T>
        _C[k] = VALUE(k)  # <T>
        _D[k] = VALUE(k + 1)  # <T>
    return x * _C[k] * _D[k]  # <T> <T>
""",
    "a-helper-fills-it": """
def _lookup(k):
    if k not in _C:  # <T>
        _C[k] = VALUE(k)  # <T>
    return _C[k]  # <T>

@allow_in_graph
def f(x):
    return x * _lookup(x.shape[-1])
""",
    "functools.cache": """
@functools.cache
def _cached(k):
    return VALUE(k)

@allow_in_graph
def f(x):
    return x * _cached(x.shape[-1])  # <T>
""",
    "functools.lru_cache(None)": """
@functools.lru_cache(None)
def _cached(k):
    return VALUE(k)

@allow_in_graph
def f(x):
    return x + _cached(x.shape[-1])  # <T>
""",
    "functools.lru_cache(maxsize=None)": """
@functools.lru_cache(maxsize=None)
def _cached(k):
    return VALUE(k)

@allow_in_graph
def f(x):
    return x + _cached(x.shape[-1])  # <T>
""",
    "bare-functools.lru_cache": """
@functools.lru_cache
def _cached(k):
    return VALUE(k)

@allow_in_graph
def f(x):
    return x + _cached(x.shape[-1])  # <T>
""",
    "from-functools-import-lru_cache-as-memo": """
from functools import lru_cache as memo

@memo(maxsize=128)
def _cached(k):
    return VALUE(k)

@allow_in_graph
def f(x):
    return x + _cached(x.shape[-1])  # <T>
""",
    "from-functools-import-cache-through-a-helper": """
from functools import cache

@cache
def _cached(k):
    return VALUE(k)

def _scaled(k):
    return _cached(k) * 2  # <T>

@allow_in_graph
def f(x):
    return x + _scaled(x.shape[-1])
""",
}


def _found(source: str) -> Counter[tuple[int, str]]:
    report = check_source(source, "memo.py")
    return Counter((finding.line, finding.code) for finding in report.findings)


@pytest.mark.parametrize("spelling", SPELLINGS.values(), ids=list(SPELLINGS))
def test_a_memo_of_values_computed_from_the_key_is_not_state(spelling: Spelling) -> None:
    source = _module(spelling, _value).replace("  # <T> <T>", "").replace("  # <T>", "")
    assert _found(source) == Counter()


@pytest.mark.parametrize("spelling", SPELLINGS.values(), ids=list(SPELLINGS))
def test_a_memo_of_tensors_is_a_captured_tensor(spelling: Spelling) -> None:
    source = _module(spelling, _tensor).replace("<T>", "AIG301")
    assert _found(source) == expected(source)


def test_the_message_names_the_cache_and_the_poisoning() -> None:
    source = _module(SPELLINGS["a-helper-fills-it"], _tensor)
    (first, *_) = check_source(source, "memo.py").findings
    assert first.code == "AIG301"
    assert "'_C'" in first.message and "a cache of tensors filled at line 11" in first.message
    assert "keeps a FakeTensor" in first.message and "every later eager call fails too" in first.message
    cached = check_source(_module(SPELLINGS["functools.cache"], _tensor), "memo.py").findings
    assert [finding.code for finding in cached] == ["AIG301"]
    assert "_cached()" in cached[0].message and "functools.cache" in cached[0].message


#: A memo of values that the code also changes otherwise: state, read at each marked line.
STATE: dict[str, str] = {
    "cleared": """
def reset():
    _C.clear()
""",
    "deleted-from": """
def forget(k):
    del _C[k]
""",
    "rebound": """
def reset():
    global _C
    _C = {}
""",
    "written-by-a-function-that-does-not-look-it-up": """
def warm(k):
    _C[k] = k * 2
""",
}

_LOOKUP = """
@allow_in_graph
def f(x, k: int):
    if k not in _C:  # AIG302
        _C[k] = k * 2  # AIG302
    return x * _C[k]  # AIG302
"""


@pytest.mark.parametrize("elsewhere", STATE.values(), ids=list(STATE))
def test_a_memo_changed_elsewhere_is_state(elsewhere: str) -> None:
    source = _HEAD + _LOOKUP + elsewhere
    assert _found(source) == expected(source)


def test_a_fill_of_a_value_computed_from_other_inputs_is_not_a_memo_of_the_key() -> None:
    """``k * scale``: the cache keeps what the first call's ``scale`` gave; filled in the
    registered body, the fill runs at trace time only under aot_eager and inductor (AIG501)."""
    source = (
        _HEAD
        + """
@allow_in_graph
def f(x, k: int, scale: float):
    if k not in _C:
        _C[k] = k * scale  # AIG501
    return x * _C[k]
"""
    )
    assert _found(source) == expected(source)


_IMPORTER = """
import torch

from .memo import _C, _D

@torch.compiler.allow_in_graph
def g(x):
    return x * len(_C) * len(_D)  # <T>
"""


@pytest.mark.parametrize("spelling", SPELLINGS.values(), ids=list(SPELLINGS))
def test_another_module_reads_a_memo_of_values(tmp_path: Path, spelling: Spelling) -> None:
    """The index answers for the module that fills the memo (``index.change_walk``) as
    the module's own facts do: each spelling is a memo there too."""
    memo = _module(spelling, _value).replace("  # <T> <T>", "").replace("  # <T>", "")
    write(tmp_path, {"pkg/__init__.py": "", "pkg/memo.py": memo, "pkg/ops.py": _IMPORTER.replace("  # <T>", "")})
    check(tmp_path, "pkg/ops.py")


#: Rebinding the memo's module's name does not rebind the importer's copy (``from .memo import _C``).
IMPORTED_STATE = {name: code for name, code in STATE.items() if name != "rebound"}


@pytest.mark.parametrize("elsewhere", IMPORTED_STATE.values(), ids=list(IMPORTED_STATE))
def test_another_module_reads_a_memo_changed_elsewhere(tmp_path: Path, elsewhere: str) -> None:
    memo = _HEAD + _LOOKUP.replace("  # AIG302", "") + elsewhere
    write(tmp_path, {"pkg/__init__.py": "", "pkg/memo.py": memo, "pkg/ops.py": _IMPORTER.replace("<T>", "AIG302")})
    check(tmp_path, "pkg/ops.py")
