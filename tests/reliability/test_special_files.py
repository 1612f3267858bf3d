"""A FIFO, a device or a socket among the files to check costs that file an AIG900 and
is never opened (issue 12): a FIFO would block the run forever, ``/dev/zero`` would be
read until memory ran out. Every other file is still checked."""

from __future__ import annotations

import json
import os
import socket
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from processes import aigcheck, found
from projects import CAPTURING_OPS, write

from checker.reading.source import read_source

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """``pkg/ops.py`` (one AIG301) beside the FIFO ``pkg/pipe.py``."""
    write(tmp_path, {"pkg/__init__.py": "", "pkg/ops.py": CAPTURING_OPS})
    os.mkfifo(tmp_path / "pkg" / "pipe.py")
    return tmp_path


def messages(result: subprocess.CompletedProcess[str]) -> dict[str, str]:
    return {finding["path"]: finding["message"] for finding in json.loads(result.stdout)}


def test_a_fifo_named_on_the_command_line(tree: Path) -> None:
    result = aigcheck(tree, "--isolated", "--output-format", "json", "pkg/pipe.py", "pkg/ops.py")
    assert found(result) == [("pkg/ops.py", "AIG301"), ("pkg/pipe.py", "AIG900")]
    assert messages(result)["pkg/pipe.py"].startswith("not a regular file: a FIFO; it was not opened")
    assert result.returncode == 1


def test_a_fifo_met_while_walking_a_directory(tree: Path) -> None:
    result = aigcheck(tree, "--isolated", "--output-format", "json", "pkg")
    assert found(result) == [("pkg/ops.py", "AIG301"), ("pkg/pipe.py", "AIG900")]
    assert result.stderr == ""


def test_a_fifo_beside_a_file_named_alone(tree: Path) -> None:
    # Its project is searched for registrations of the named file's defs: the FIFO is passed over.
    result = aigcheck(tree, "--isolated", "--output-format", "json", "pkg/ops.py")
    assert found(result) == [("pkg/ops.py", "AIG301")]


def test_a_fifo_a_checked_module_imports_from(tree: Path) -> None:
    write(tree, {"pkg/uses.py": "import torch\nfrom pkg.pipe import V\n\ntorch.compiler.allow_in_graph(V)\n"})
    result = aigcheck(tree, "--isolated", "--output-format", "json", "pkg")
    assert ("pkg/pipe.py", "AIG900") in found(result)


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
def test_dev_zero_named_as_a_file_with_source_excerpts(tree: Path) -> None:
    result = aigcheck(tree, "--isolated", "--show-source", "/dev/zero", "pkg/ops.py")
    lines = result.stdout.splitlines()
    assert lines[0].startswith("/dev/zero:1:1: AIG900 [error] not a regular file: a character device;")
    assert lines[1].startswith("pkg/ops.py:7:16: AIG301")  # no excerpt under the device's finding
    assert result.returncode == 1


@pytest.fixture
def unix_socket(tree: Path) -> Iterator[Path]:
    if not hasattr(socket, "AF_UNIX"):
        pytest.skip("needs Unix sockets")
    path = tree / "pkg" / "listening.py"
    server = socket.socket(socket.AF_UNIX)
    try:
        server.bind(str(path))
    except OSError as error:  # a path too long for sun_path
        server.close()
        pytest.skip(f"cannot bind a Unix socket here: {error}")
    with server:
        yield path


def test_a_socket_met_while_walking(tree: Path, unix_socket: Path) -> None:
    result = aigcheck(tree, "--isolated", "--output-format", "json", "pkg")
    assert ("pkg/listening.py", "AIG900") in found(result)
    assert messages(result)["pkg/listening.py"].startswith("not a regular file: a socket;")


def test_per_file_ignores_and_excludes_apply(tree: Path) -> None:
    write(tree, {"pyproject.toml": '[tool.aigcheck.per-file-ignores]\n"pkg/pipe.py" = ["AIG900"]\n'})
    assert found(aigcheck(tree, "--output-format", "json", "pkg")) == [("pkg/ops.py", "AIG301")]
    excluded = aigcheck(tree, "--isolated", "--output-format", "json", "--exclude", "pipe.py", "pkg")
    assert found(excluded) == [("pkg/ops.py", "AIG301")]


def test_a_fifo_put_where_a_file_was_is_refused_not_waited_on(tmp_path: Path) -> None:
    """Discovery saw a regular file; by the time it is read, a FIFO stands in its place."""
    os.mkfifo(tmp_path / "swapped.py")
    with pytest.raises(OSError, match="not a regular file"):
        read_source(tmp_path / "swapped.py")


def test_a_file_over_the_limit_is_never_read_whole(tmp_path: Path) -> None:
    (tmp_path / "big.py").write_bytes(b"x = 1\n" * 100)
    assert read_source(tmp_path / "big.py", limit=599) is None
    assert read_source(tmp_path / "big.py", limit=600) == b"x = 1\n" * 100
