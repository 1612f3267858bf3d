"""The guard judges values with the same contract the checker judges annotations with."""

from __future__ import annotations

import dataclasses
import enum
import types
import typing

import pytest
import torch
from torch._subclasses.fake_tensor import FakeTensorMode
from torch.fx.immutable_collections import immutable_list

from checker.spec import contract
from checker.spec.contract import USER_CLASSES, UserClass, Verdict
from runtime_guard import values


class Color(enum.Enum):
    RED = 1


@dataclasses.dataclass(frozen=True)
class Frozen:
    k: float


@dataclasses.dataclass
class Loose:
    k: float


class Plain:
    pass


class Pair(typing.NamedTuple):
    a: int
    b: int


#: value, and the qualified name the checker judges for an annotation of its type.
ARGUMENTS = [
    (torch.ones(2), "torch.Tensor"),
    (torch.nn.Parameter(torch.ones(2)), "torch.nn.Parameter"),
    (3, "builtins.int"),
    (0.5, "builtins.float"),
    (True, "builtins.bool"),
    (None, "builtins.None"),
    ([1, 2], "typing.List"),
    (immutable_list([1, 2]), "builtins.list"),
    ((1, 2), "typing.Tuple"),
    (torch.float32, "torch.dtype"),
    (torch.device("cpu"), "torch.device"),
    ("s", "builtins.str"),
    ({"a": 1}, "typing.Dict"),
    (slice(1, 2), "builtins.slice"),
    (Color.RED, "enum.Enum"),
    (torch.Size([2]), "torch.Size"),
    (torch.nn.Linear(2, 2), "torch.nn.Module"),
    (lambda x: x, "typing.Callable"),
    (types.FunctionType, "builtins.type"),
    (torch.sin, "builtins.builtin_function_or_method"),
]


@pytest.mark.parametrize("value, annotation", ARGUMENTS, ids=[name for _, name in ARGUMENTS])
def test_argument_verdicts_match_the_checker(value: object, annotation: str) -> None:
    assert values.argument_verdict(value) == contract.argument(annotation)


RESULTS = [
    (torch.ones(2), "torch.Tensor", False),
    (None, "builtins.None", False),
    (0.5, "builtins.float", False),
    (0.5, "builtins.float", True),
    (3, "builtins.int", False),
    (3, "builtins.int", True),
    (True, "builtins.bool", False),
    ("s", "builtins.str", False),
    ({"a": 1}, "typing.Dict", False),
    ({1}, "typing.Set", False),
    (torch.float32, "torch.dtype", False),
    (torch.Size([2]), "torch.Size", False),
]


@pytest.mark.parametrize("value, annotation, inside", RESULTS, ids=[f"{n}{'-inside' * i}" for _, n, i in RESULTS])
def test_result_verdicts_match_the_checker(value: object, annotation: str, inside: bool) -> None:
    assert values.result_verdict(value, inside) == contract.result(annotation, inside)


@pytest.mark.parametrize(
    "value, kind",
    [
        (Frozen(1.0), UserClass.FROZEN_DATACLASS),
        (Loose(1.0), UserClass.DATACLASS),
        (Plain(), UserClass.PLAIN),
        (Pair(1, 2), UserClass.NAMEDTUPLE),
        (Color.RED, UserClass.ENUM),
        (torch.nn.ReLU(), UserClass.MODULE),
    ],
    ids=lambda v: v.name if isinstance(v, UserClass) else "",
)
def test_user_classes_use_the_contract_table(value: object, kind: UserClass) -> None:
    assert values.user_class(value) is kind
    if kind is not UserClass.ENUM and kind is not UserClass.MODULE:
        assert values.argument_verdict(value) == USER_CLASSES[kind]


def test_fake_tensors_are_tensors() -> None:
    with FakeTensorMode():
        fake = torch.ones(2)
    assert values.qualified_name(fake) == "torch.Tensor"
    assert values.argument_verdict(fake).verdict is Verdict.DOCUMENTED


def test_paths_descend_like_typeguard() -> None:
    found = list(values.check_argument([torch.ones(1), (1, Plain())], "argument 'xs'"))
    assert [f.path for f in found] == ["item 1 of item 1 of argument 'xs'"]
    assert found[0].code == "AIG101"
    results = list(values.check_result((torch.ones(1), [2, 0.5])))
    assert [(f.code, f.path) for f in results] == [
        ("AIG202", "item 0 of item 1 of the return value"),
        ("AIG202", "item 1 of item 1 of the return value"),
    ]


def _paths(value: object) -> list[str]:
    return [f.path for f in values.check_argument(value, "argument 'xs'")]


def test_long_lists_are_judged_at_their_start_and_sampled() -> None:
    items: list[object] = [0.5] * 100_000
    items[3] = items[-1] = Plain()
    items[50_000] = Plain()  # neither among the first items nor sampled: not judged
    assert _paths(items) == ["item 3 of argument 'xs'", "item 99999 of argument 'xs'"]


def test_a_list_that_contains_itself_is_entered_once() -> None:
    items: list[object] = [Plain()]
    items.append(items)
    assert _paths(items) == ["item 0 of argument 'xs'"]


def test_nesting_is_followed_to_the_depth_bound() -> None:
    shallow: list[object] = [Plain()]
    for _ in range(values.DEPTH - 1):
        shallow = [shallow]
    assert len(_paths(shallow)) == 1
    assert _paths([shallow]) == []  # one level deeper than the bound: not looked into


def test_a_dict_key_whose_repr_fails_is_named_without_it() -> None:
    class Key:
        def __repr__(self):
            raise RuntimeError("no repr")

    assert _paths({Key(): Plain()}) == ["value <Key object> of argument 'xs'"]


def test_a_number_whose_repr_fails_is_described_by_its_value() -> None:
    class Three(int):
        def __repr__(self):
            raise RuntimeError("no repr")

    assert values.describe(Three(3)).endswith("Three (3)")
