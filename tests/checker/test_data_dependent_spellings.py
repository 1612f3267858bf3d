"""Every spelling of a Python decision on tensor data is AIG502 (issue 22, class 9), on the
parameters and on any tensor the body computes from them; what is not tensor data (shapes,
sizes, dtypes, identity, isinstance) stays clean.

Each row is the body of a registered function whose ``x`` and ``y`` are tensors: annotated
as such (``torch.Tensor``), or bare parameters that a tensor-only method (``x.sum()``,
``x.max()``) shows to be tensors.
"""

from __future__ import annotations

import textwrap

import pytest

from checker.api import check_source

ANNOTATED = "def decide(x: torch.Tensor, y: torch.Tensor, q: float, scale=None):"
BARE = "def decide(x, y, q, scale=None):"

#: Data-dependent Python: each line marked is one AIG502.
DATA_DEPENDENT = {
    "int-of-derived-local": "m = x.max()\nreturn x[: int(m)]  # AIG502",
    "bool-of-comparison-method": "return x * bool((x > 0).all())  # AIG502",
    "float-of-reduction": "return x * float(x.sum())  # AIG502",
    "int-of-reduction": "return x * int(x.argmax())  # AIG502",
    "int-of-derived-expression": "return x[: int(x.abs().max() + 1)]  # AIG502",
    "bool-of-local": "m = x.abs().max()\nreturn x * bool(m)  # AIG502",
    "if-reduction": "if x.sum():  # AIG502\n    return x\nreturn y",
    "if-comparison": "if x.abs().max() > q:  # AIG502\n    return x\nreturn y",
    "if-local": "m = x.mean()\nif m:  # AIG502\n    return x\nreturn y",
    "if-not": "if not x.any():  # AIG502\n    return x\nreturn y",
    "if-and": "if x.any() and q > 0:  # AIG502\n    return x\nreturn y",
    "while": "while x.abs().max() > q:  # AIG502\n    x = x / 2\nreturn x",
    "assert": "assert x.isfinite().all()  # AIG502\nreturn x",
    "ternary": "return x if x.mean() > 0 else y  # AIG502",
    "and-value": "return (x.any() and y)  # AIG502",
    "or-value": "return (x.sum() or y)  # AIG502",
    "not-value": "return x * (not x.all())  # AIG502",
    "not-then-python-bool": "empty = not x.sum()  # AIG502\nif empty or not q:\n    return x\nreturn y",
    "and-inside-if-once": "if q > 0 and (x.any() or not x.all()):  # AIG502\n    return x\nreturn y",
    "item-of-chain": "return x * x.abs().max().item()  # AIG502",
    "tolist-of-chain": "return x * len(x.abs().sum(0).tolist())  # AIG502",
    "item-of-local": "m = x.max()\nreturn x * m.item()  # AIG502",
    "item-of-torch-function": "return x * torch.quantile(x.abs(), q).item()  # AIG502",
    "item-of-norm": "return x / torch.norm(x.abs()).item()  # AIG502",
    "item-of-softmax": "return x * torch.softmax(x.abs(), -1).max().item()  # AIG502",
    "item-of-item-index": "return x * x.abs()[0].item()  # AIG502",
    "item-of-arithmetic": "return x * (x.abs() + 1).item()  # AIG502",
    "tolist-of-arithmetic": "return x * len((x.sum(0) * 2).tolist())  # AIG502",
    "float-of-torch-function": "return x * float(torch.norm(x.abs()))  # AIG502",
    # .item(), .tolist() of anything computed from the body's own values (no number has them)
    "item-of-matmul": "return x * (x @ y).item()  # AIG502",
    "item-of-index": "return x * x[0].item()  # AIG502",
    "tolist-of-sum": "return x * len((x + 1).tolist())  # AIG502",
}

#: Only where the parameters are annotated: nothing else says a bare ``x`` is a tensor.
ANNOTATED_ONLY = {
    "if-parameter": "if x:  # AIG502\n    return x\nreturn y",
    "bool-of-parameter": "return x * bool(x)  # AIG502",
    "float-of-parameter": "return x * float(x)  # AIG502",
    "int-of-index": "return x[: int(x[0])]  # AIG502",
    "bool-of-matmul": "return x * bool(x @ y)  # AIG502",
    "while-parameter": "while x:  # AIG502\n    x = x[1:]\nreturn x",
    "assert-parameter": "assert x  # AIG502\nreturn x",
    "not-parameter": "return x * (not x)  # AIG502",
    "and-parameter": "return x and y  # AIG502",
}

#: Not tensor data: metadata, sizes, identity, type tests, Python values.
CLEAN = {
    "shape-index": "return x[: int(x.shape[0])]",
    "shape-compare": "if x.shape[0] > 2:\n    return x\nreturn y",
    "dim": "if x.dim() == 2:\n    return x\nreturn y",
    "dim-truth": "if x.dim():\n    return x\nreturn y",
    "ndim-and-contiguous": "if x.ndim > 1 and x.is_contiguous():\n    return x\nreturn y",
    "len": "if len(x) > 3:\n    return x\nreturn y",
    "numel": "return x * float(x.numel())",
    "size": "return x * int(x.size(0))",
    "stride": "return x * int(x.stride(0))",
    "scaled-shape": "return x * float(x.shape[-1]) ** -0.5",
    "dtype": "if x.dtype == torch.float16:\n    return x\nreturn y",
    "dtype-in": "assert x.dtype in (torch.float16, torch.bfloat16)\nreturn x",
    "device": "if x.device.type == 'cuda':\n    return x\nreturn y",
    "is-cuda": "return x * bool(x.is_cuda)",
    "requires-grad": "if x.requires_grad:\n    return x\nreturn y",
    "is-floating-point": "if x.is_floating_point():\n    return x\nreturn y",
    "is-none": "if x is None or scale is not None:\n    return x\nreturn y",
    "isinstance": "if isinstance(x, torch.Tensor) and not isinstance(y, torch.Tensor):\n    return x\nreturn y",
    "is-tensor": "if torch.is_tensor(y):\n    return y\nreturn x",
    "shapes-equal": "assert x.shape == y.shape\nreturn x",
    "python-value": "if q > 0 and scale:\n    return x * q\nreturn x * bool(scale)",
    "shape-ternary": "return x if x.dim() > 1 else x.flatten()",
    "not-shape": "return x if not x.shape[0] else y",
    "constant-tensor": "return x * torch.tensor(0.5).item()",
}


def _source(header: str, body: str) -> str:
    return f"import torch\n\n\n@torch.compiler.allow_in_graph\n{header}\n{textwrap.indent(body, '    ')}\n"


def _found(source: str) -> list[int]:
    report = check_source(source)
    assert report.internal_error is None, report.internal_error
    return sorted(finding.line for finding in report.findings if finding.code == "AIG502")


def _marked(source: str) -> list[int]:
    return [number for number, line in enumerate(source.splitlines(), 1) if line.endswith("# AIG502")]


@pytest.mark.parametrize("body", DATA_DEPENDENT.values(), ids=list(DATA_DEPENDENT))
@pytest.mark.parametrize("header", [ANNOTATED, BARE], ids=["annotated", "bare"])
def test_data_dependent_python_is_reported(header: str, body: str) -> None:
    source = _source(header, body)
    assert _found(source) == _marked(source)


@pytest.mark.parametrize("body", ANNOTATED_ONLY.values(), ids=list(ANNOTATED_ONLY))
def test_data_dependent_python_on_annotated_parameters_is_reported(body: str) -> None:
    source = _source(ANNOTATED, body)
    assert _found(source) == _marked(source)


@pytest.mark.parametrize("body", ANNOTATED_ONLY.values(), ids=list(ANNOTATED_ONLY))
def test_a_bare_parameter_of_unknown_type_is_not_a_tensor(body: str) -> None:
    assert _found(_source(BARE, body)) == []


@pytest.mark.parametrize("body", CLEAN.values(), ids=list(CLEAN))
@pytest.mark.parametrize("header", [ANNOTATED, BARE], ids=["annotated", "bare"])
def test_what_is_not_tensor_data_stays_clean(header: str, body: str) -> None:
    assert _found(_source(header, body)) == []
