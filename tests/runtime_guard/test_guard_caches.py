"""A FakeTensor left in the program's own cache or container after tracing (AIG301).

evidence/dynamo/FINDINGS.md S§12: a registered function that fills an ``lru_cache`` or a
memo dict while Dynamo traces it leaves a FakeTensor there; the compile fails, and every
later eager call fails too, until the cache is cleared. The guard names the container,
once, and leaves it as it is; a cache filled eagerly before compiling is torch's own
captured-tensor failure, worded as the guard's captured-tensor message.
"""

from __future__ import annotations

import functools
import types
from collections.abc import Iterator

import pytest
import torch
from torch._subclasses.fake_tensor import FakeTensor, FakeTensorMode

import runtime_guard as rg
from checker.spec.messages import TensorInOp

HERE = __name__


@functools.cache
def _table(n):
    return torch.arange(n, dtype=torch.float32)


@functools.lru_cache(maxsize=2)
def _bounded_table(n):
    return torch.arange(n, dtype=torch.float32) + 1


@functools.cache
def _scale(n):
    return float(n) * 0.5


_MEMO: dict[int, torch.Tensor] = {}
_SEEN: list[torch.Tensor] = []
_HELD: dict[str, object] = {}
_LAST = None


def _memo_table(n):
    table = _MEMO.get(n)
    if table is None:
        table = torch.arange(n, dtype=torch.float32)
        _MEMO[n] = table
    return table


def via_lru(x):
    return x * _table(x.shape[-1])


def via_bounded_lru(x):
    return x * _bounded_table(x.shape[-1])


def via_memo(x):
    return x * _memo_table(x.shape[-1])


def appends(x):
    y = x * 2
    _SEEN.append(y)
    return y


def rebinds(x):
    global _LAST
    _LAST = x.sum()
    return x + 1


class _State:
    def __init__(self) -> None:
        self.tables: dict[int, tuple[torch.Tensor, torch.Tensor]] = {}


_STATE = _State()


def _pair(n):
    return _STATE.tables.setdefault(n, (torch.zeros(n), torch.ones(n)))


def _through_pair(n):
    return _pair(n)[1]


def via_helper_of_helper(x):
    return x * _through_pair(x.shape[-1])


def _make_cached():
    cache: dict[str, torch.Tensor] = {}

    def via_cell(x):
        if "w" not in cache:
            cache["w"] = torch.ones(x.shape[-1])
        return x * cache["w"]

    return via_cell, cache


def via_float_cache(x):
    return x * _scale(4)


def local_only(x):
    table = {}
    table[0] = torch.arange(x.shape[-1], dtype=torch.float32)
    scratch = [x * 2]
    return x * table[0] + scratch[0]


def reads_held(x):
    return x * len(_HELD)


@pytest.fixture(autouse=True)
def empty_caches() -> Iterator[None]:
    def clear() -> None:
        global _LAST
        _table.cache_clear()
        _bounded_table.cache_clear()
        _scale.cache_clear()
        _MEMO.clear()
        _SEEN.clear()
        _HELD.clear()
        _STATE.tables.clear()
        _LAST = None

    clear()
    yield
    clear()


def _left_in_caches() -> list[str]:
    """The details of the cache violations recorded so far."""
    return [v.detail for v in rg.registry.violations() if "created while tracing" in v.detail]


def _fresh(fn):
    """A new function object with ``fn``'s code: each test registers its own (a second
    registration of one object returns the first one's wrapper, in the first one's mode)."""
    return types.FunctionType(fn.__code__, fn.__globals__, fn.__name__, fn.__defaults__, fn.__closure__)


def _compile(fn, backend: str, mode: str = "warn"):
    with rg.strict(mode):
        guarded = rg.allow_in_graph(_fresh(fn))
    return guarded, torch.compile(lambda t: guarded(t) + 1, backend=backend)


@pytest.mark.filterwarnings("ignore::runtime_guard.ContractWarning")
@pytest.mark.parametrize(
    "fn, container",
    [
        (via_lru, f"lru_cache of {HERE}._table"),
        (via_bounded_lru, f"lru_cache of {HERE}._bounded_table"),
        (via_memo, f"dict {HERE}._MEMO, key 4"),
    ],
    ids=["lru_cache", "bounded_lru_cache", "memo_dict"],
)
@pytest.mark.parametrize("backend", ["eager", "aot_eager"])
def test_a_cache_filled_while_tracing_is_named_once(fn, container: str, backend: str) -> None:
    _, compiled = _compile(fn, backend)
    with pytest.raises(Exception):  # noqa: B017, PT011 - torch fails to compile it, guard or not (S§12)
        compiled(torch.ones(4))
    [detail] = _left_in_caches()
    assert f"leaves a FakeTensor (shape (4,), dtype torch.float32) created while tracing in the {container}" in detail
    assert "every later eager call" in detail
    assert "pass the tensor in as an argument, or build it outside the registered function" in detail
    assert [v.code for v in rg.registry.violations() if v.detail == detail] == ["AIG301"]


@pytest.mark.filterwarnings("ignore::runtime_guard.ContractWarning")
@pytest.mark.filterwarnings("ignore::runtime_guard.ContractWarning")
def test_an_object_attribute_read_by_a_helper_of_a_helper() -> None:
    _, compiled = _compile(via_helper_of_helper, "eager")
    with pytest.raises(Exception):  # noqa: B017, PT011 - torch fails to compile it (S§12)
        compiled(torch.ones(4))
    assert [d.split(";")[0] for d in _left_in_caches()] == [
        f"leaves a FakeTensor (shape (4,), dtype torch.float32) created while tracing in the dict "
        f"{HERE}._STATE.tables, key 4"
    ]


@pytest.mark.filterwarnings("ignore::runtime_guard.ContractWarning")
def test_a_closure_cell_cache() -> None:
    via_cell, cache = _make_cached()
    _, compiled = _compile(via_cell, "eager")
    with pytest.raises(Exception):  # noqa: B017, PT011 - torch fails to compile it (S§12)
        compiled(torch.ones(4))
    assert [d.split(";")[0] for d in _left_in_caches()] == [
        "leaves a FakeTensor (shape (4,), dtype torch.float32) created while tracing in the dict 'cache' "
        f"(a closure cell of {HERE}._make_cached.<locals>.via_cell), key 'w'"
    ]
    assert isinstance(cache["w"], FakeTensor)


@pytest.mark.filterwarnings("ignore::runtime_guard.ContractWarning")
def test_the_guard_leaves_the_cache_as_it_found_it() -> None:
    _, compiled = _compile(via_memo, "eager")
    with pytest.raises(Exception):  # noqa: B017, PT011 - torch fails to compile it (S§12)
        compiled(torch.ones(4))
    assert isinstance(_MEMO[4], FakeTensor)  # reported, not cleared: the guard changes nothing


def test_a_later_eager_call_fails_with_the_cache_named() -> None:
    """After the compile, the eager call meets the FakeTensor in the cache: the guard's
    error names the cache, where torch's names no variable."""
    guarded, compiled = _compile(via_lru, "aot_eager")
    with pytest.warns(rg.ContractWarning, match="created while tracing"), pytest.raises(Exception):  # noqa: B017, PT011
        compiled(torch.ones(4))
    with pytest.raises(rg.ContractViolation, match=f"lru_cache of {HERE}._table") as info:
        guarded(torch.ones(4))
    assert "Please convert all Tensors to FakeTensors first" in str(info.value)


@pytest.mark.filterwarnings("ignore::runtime_guard.ContractWarning")
@pytest.mark.parametrize(
    "fn, container",
    [(appends, f"list {HERE}._SEEN"), (rebinds, f"global {HERE}._LAST")],
    ids=["list_append", "global_rebound"],
)
def test_a_container_filled_while_tracing_is_named_once(fn, container: str) -> None:
    """Compiling works (nothing reads it back in the call), but the program keeps
    FakeTensors: named once, however many traced calls add one (aot_eager makes three)."""
    _, compiled = _compile(fn, "aot_eager")
    compiled(torch.ones(4))
    [detail] = _left_in_caches()
    assert f"created while tracing in the {container}" in detail


def test_raise_mode_raises_the_cache_violation() -> None:
    _, compiled = _compile(via_memo, "eager", mode="raise")
    with pytest.raises(rg.ContractViolation, match=f"dict {HERE}._MEMO, key 4") as info:
        compiled(torch.ones(4))
    assert info.value.code == "AIG301"


@pytest.mark.filterwarnings("ignore::runtime_guard.ContractWarning")
@pytest.mark.parametrize("fn", [via_float_cache, local_only, reads_held], ids=["floats", "local", "held"])
def test_no_report_without_a_tensor_left_behind(fn) -> None:
    with FakeTensorMode():
        _HELD["placed before"] = torch.ones(2)  # a FakeTensor the user put there: not the guard's to report
    _, compiled = _compile(fn, "aot_eager")
    compiled(torch.ones(4))
    assert _left_in_caches() == []


@pytest.mark.filterwarnings("ignore::runtime_guard.ContractWarning")
def test_a_cache_filled_eagerly_before_compiling_is_a_captured_tensor() -> None:
    guarded, compiled = _compile(via_memo, "eager")
    guarded(torch.ones(4))  # fills the cache with a real tensor
    with pytest.raises(Exception, match="Please convert all Tensors to FakeTensors first"):  # noqa: PT011 - torch's
        compiled(torch.ones(4))
    assert _left_in_caches() == []
    seen = TensorInOp("tensor", None, (4,), "torch.float32", "Tensor.mul").text()
    assert [v.detail for v in rg.registry.violations()] == [seen]
    assert not isinstance(_MEMO[4], FakeTensor)


@pytest.mark.filterwarnings("ignore::runtime_guard.ContractWarning")
def test_eager_calls_filling_a_cache_are_not_reported() -> None:
    with rg.strict("warn"):
        guarded = rg.allow_in_graph(_fresh(appends))
    for _ in range(5):
        guarded(torch.ones(4))
    assert _left_in_caches() == []


@pytest.mark.filterwarnings("ignore::runtime_guard.ContractWarning")
def test_a_long_memo_dict_is_read_from_its_newest_items() -> None:
    """A memo dict keeps insertion order: what a call added is among its last items, which
    the bounded look reads first (50,000 older entries are not all read)."""
    _MEMO.update(dict.fromkeys(range(100, 50_100), 0.0))
    _, compiled = _compile(via_memo, "eager")
    with pytest.raises(Exception):  # noqa: B017, PT011 - torch fails to compile it (S§12)
        compiled(torch.ones(4))
    [detail] = _left_in_caches()
    assert f"dict {HERE}._MEMO, key 4;" in detail
