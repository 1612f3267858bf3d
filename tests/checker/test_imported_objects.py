"""Objects imported from other modules keep their kind (issue 22, class 8): a logger, an
open file, a standard stream, a progress bar, the warnings module or its warn, bound in one
module of the project and read in a registered body of another, is what it is there. Each
import spelling of them gives the findings their definition in the same module gives; a
name whose binding cannot be resolved stays unknown and is not reported."""

from __future__ import annotations

from pathlib import Path

import pytest
from projects import check, write

#: Objects whose methods act outside the program, bound at the top level of pkg/utils.py.
UTILS = """\
import logging
import sys
import warnings
from warnings import warn

from tqdm import tqdm
from transformers.utils import logging as hf_logging

logger = logging.getLogger(__name__)
hub_logger = hf_logging.get_logger(__name__)
trace_file = open("trace.log", "w")
err = sys.stderr
bar = tqdm(total=10)
"""

NAMES = ("logger", "hub_logger", "trace_file", "err", "warnings", "warn", "bar")

#: A registered body using each object, ``{}`` where the spelling names it.
BODY = """\


@torch.compiler.allow_in_graph
def traced(x):
    {logger}.info("tracing %s", x.shape)  # AIG501
    {hub_logger}.warning_once("slow path")  # AIG501
    {trace_file}.write("traced")  # AIG501
    {err}.write("traced")  # AIG501
    {warnings}.warn("slow path")  # AIG501
    {warn}("slow path")  # AIG501
    {bar}.set_postfix(step=1)  # AIG501
    {err}.isatty()
    return x
"""


def _names(spelled: str) -> dict[str, str]:
    return {name: spelled.format(name) for name in NAMES}


_ALL = ", ".join(NAMES)
#: How pkg/ops.py imports the objects, and how its body then names each of them.
SPELLINGS = {
    "relative": (f"from .utils import {_ALL}", "{}"),
    "absolute": (f"from pkg.utils import {_ALL}", "{}"),
    "renamed": ("from pkg.utils import " + ", ".join(f"{name} as my_{name}" for name in NAMES), "my_{}"),
    "import-as": ("import pkg.utils as u", "u.{}"),
    "package-module": ("from pkg import utils", "utils.{}"),
    "relative-module": ("from . import utils", "utils.{}"),
    "dotted": ("import pkg.utils", "pkg.utils.{}"),
    "re-export": (f"from pkg import {_ALL}", "{}"),
    "relative-re-export": (f"from . import {_ALL}", "{}"),
    "chained": (f"from .reexport import {_ALL}", "{}"),
    "chained-module": ("from . import reexport", "reexport.{}"),
}


def _project(tmp_path: Path, ops: str) -> Path:
    return write(
        tmp_path,
        {
            "pkg/__init__.py": f"from .utils import {_ALL}\n",
            "pkg/utils.py": UTILS,
            "pkg/reexport.py": f"from .utils import {_ALL}\n",
            "pkg/ops.py": ops,
        },
    )


@pytest.mark.parametrize(("imports", "spelled"), SPELLINGS.values(), ids=list(SPELLINGS))
def test_an_imported_object_keeps_its_kind(tmp_path: Path, imports: str, spelled: str) -> None:
    root = _project(tmp_path, f"import torch\n\n{imports}\n" + BODY.format(**_names(spelled)))
    check(root, "pkg/ops.py")


def test_the_same_objects_bound_in_the_module_itself(tmp_path: Path) -> None:
    """The baseline the imported spellings are held to: the objects defined where they are read."""
    ops = "import torch\n" + UTILS + BODY.format(**_names("{}"))
    check(write(tmp_path, {"pkg/__init__.py": "", "pkg/ops.py": ops}), "pkg/ops.py")


UNKNOWNS = """\
import logging

from somewhere_else import make_sink


class Recorder:
    def info(self, message):
        return message

    def write(self, text):
        return text


sink = make_sink()
recorder = Recorder()
if make_sink():
    either = logging.getLogger(__name__)
else:
    either = Recorder()
"""


def test_an_object_whose_binding_cannot_be_resolved_stays_unknown(tmp_path: Path) -> None:
    ops = """\
import torch

from external_package import logger
from .unknowns import either, recorder, sink
from .missing import stream


@torch.compiler.allow_in_graph
def traced(x):
    logger.info("external: not a module of the project")
    sink.write("made by a call nothing resolves")
    recorder.info("a class of the project, not a logger")
    recorder.write("nor a stream")
    either.info("a logger on one branch only")
    stream.write("a module that is not there")
    return x
"""
    root = write(tmp_path, {"pkg/__init__.py": "", "pkg/unknowns.py": UNKNOWNS, "pkg/ops.py": ops})
    assert check(root, "pkg/ops.py") == []
