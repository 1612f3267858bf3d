"""Registered module-level functions pickle under the guard as they do with torch.

Pickle saves a function by reference: its module and qualified name, and it refuses an
object that is not what the module binds under that name. torch's ``allow_in_graph``
returns the function itself, so its result always pickles when the function does.
"""

from __future__ import annotations

import importlib
import pickle
from pathlib import Path

import pytest
import torch
from guard_modes import MODES, importable, outcome, write_module

PICKLED = """
import torch

@torch.compiler.allow_in_graph
def decorated(x):
    return x + 1

def plain(x):
    return x * 2

registered = torch.compiler.allow_in_graph(plain)
plain_again = torch.compiler.allow_in_graph(plain)
"""


@pytest.mark.parametrize("mode", MODES[1:])
def test_registered_module_functions_pickle_as_with_torch(tmp_path: Path, mode: str) -> None:
    def program(tag: str) -> dict[str, object]:
        name = f"pickled_{tag}"
        write_module(tmp_path, name, PICKLED)
        with importable(tmp_path):
            module = importlib.import_module(name)
            found: dict[str, object] = {}
            for attribute in ("decorated", "registered", "plain"):
                value = getattr(module, attribute)
                try:
                    found[attribute] = pickle.loads(pickle.dumps(value)) is value
                except pickle.PicklingError as error:
                    found[attribute] = f"PicklingError: {error}".replace(tag, "")
            found["registered is plain"] = module.registered is module.plain
            found["again is registered"] = module.plain_again is module.registered
            run = torch.compile(lambda x: module.registered(x) + module.decorated(x), backend="inductor")
            found["result"] = run(torch.ones(2)).tolist()
            return found

    expected = outcome(program, "torch")
    assert expected[0]["result"] == [4.0, 4.0] and expected[0]["registered"] is True
    assert outcome(program, mode) == expected
