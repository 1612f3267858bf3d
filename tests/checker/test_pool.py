"""The worker pool: futures per item, a dead worker fails only its own item and is
replaced, shutdown cancels what no worker has yet."""

from __future__ import annotations

import os
import signal
import time
from concurrent.futures import CancelledError

import pytest

from checker.passes.pool import Pool, WorkerDied


def nothing() -> None:
    pass


def square(n: int) -> tuple[int, int]:
    """The square, and the process that computed it."""
    return n * n, os.getpid()


def dies_on_negative(n: int) -> int:
    if n < 0:
        os.kill(os.getpid(), signal.SIGKILL)
    return n


def raises_on_zero(n: int) -> float:
    return 1 / n


def waits_for_file(path: str) -> str:
    """Blocks until ``path`` exists: keeps the worker busy for as long as the test wants."""
    while not os.path.exists(path):
        time.sleep(0.01)
    return path


def test_every_item_gets_its_answer_from_a_worker() -> None:
    pool: Pool[int, tuple[int, int]] = Pool(2, nothing, square)
    try:
        futures = [pool.submit(n) for n in range(20)]
        answers = [future.result(timeout=30) for future in futures]
    finally:
        pool.shutdown()
    assert [value for value, _ in answers] == [n * n for n in range(20)]
    assert os.getpid() not in {pid for _, pid in answers}


def test_an_exception_in_the_work_is_raised_by_the_future_and_the_worker_goes_on() -> None:
    pool: Pool[int, float] = Pool(1, nothing, raises_on_zero)
    try:
        failing, after = pool.submit(0), pool.submit(4)
        with pytest.raises(ZeroDivisionError):
            failing.result(timeout=30)
        assert after.result(timeout=30) == 0.25
    finally:
        pool.shutdown()


def test_a_worker_that_dies_fails_only_the_item_it_had_and_is_replaced() -> None:
    pool: Pool[int, int] = Pool(2, nothing, dies_on_negative)
    try:
        futures = [pool.submit(n) for n in (1, -1, 2, 3, -2, 4)]
        outcomes = []
        for future in futures:
            try:
                outcomes.append(future.result(timeout=30))
            except WorkerDied:
                outcomes.append("died")
    finally:
        pool.shutdown()
    assert outcomes == [1, "died", 2, 3, "died", 4]


def test_shutdown_cancels_the_items_no_worker_has_and_refuses_new_ones(tmp_path) -> None:
    release = tmp_path / "release"
    pool: Pool[str, str] = Pool(1, nothing, waits_for_file)
    busy = pool.submit(str(release))
    waiting = [pool.submit(str(release)) for _ in range(3)]
    while not busy.running():  # the worker has the first item
        time.sleep(0.01)
    pool.shutdown(wait=False, cancel_futures=True)
    with pytest.raises(RuntimeError, match="shut down"):
        pool.submit(str(release))
    release.touch()
    assert busy.result(timeout=30) == str(release)
    for future in waiting:
        with pytest.raises(CancelledError):
            future.result(timeout=30)
    pool.shutdown()


def test_urgent_items_go_to_a_worker_before_the_others_waiting(tmp_path) -> None:
    release = tmp_path / "release"
    pool: Pool[str, str] = Pool(1, nothing, waits_for_file)
    busy = pool.submit(str(release))
    while not busy.running():
        time.sleep(0.01)
    done: list[str] = []
    names = ("a", "urgent-1", "b", "urgent-2")
    futures = [pool.submit(str(tmp_path / name), urgent=name.startswith("urgent")) for name in names]
    for future, name in zip(futures, names, strict=True):
        future.add_done_callback(lambda _, name=name: done.append(name))
    for name in names:
        (tmp_path / name).touch()  # each waits for its own file, which exists: done at once
    release.touch()
    for future in futures:
        future.result(timeout=30)
    pool.shutdown()
    assert done == ["urgent-1", "urgent-2", "a", "b"]


def test_an_item_that_cannot_be_sent_fails_its_future_and_the_worker_goes_on() -> None:
    import pickle

    pool: Pool[object, tuple[int, int]] = Pool(1, nothing, square)
    try:
        unsendable = pool.submit(lambda: None)  # a lambda does not pickle
        with pytest.raises((pickle.PicklingError, AttributeError)):
            unsendable.result(timeout=30)
        assert pool.submit(3).result(timeout=30)[0] == 9
    finally:
        pool.shutdown()


def unpicklable_answer(n: int) -> object:
    return (lambda: n) if n < 0 else n


def test_an_answer_that_cannot_be_sent_back_fails_its_future_and_the_worker_goes_on() -> None:
    pool: Pool[int, object] = Pool(1, nothing, unpicklable_answer)
    try:
        with pytest.raises(RuntimeError, match="could not be sent back"):
            pool.submit(-1).result(timeout=30)
        assert pool.submit(2).result(timeout=30) == 2
    finally:
        pool.shutdown()
