"""The ``aigcheck`` program: the console script and ``python -m checker``.

Unlike a call of :func:`checker.cli.main` from Python, the program owns its process: with
more than one core it starts the fork server (:mod:`checker.fork_server`) before
anything else, so that the analysis is imported on another core while this process
imports the command line and reads the tree.
"""

from __future__ import annotations

import os
import sys


def main() -> int:
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    from checker import fork_server

    fork_server_started = cores > 1 and fork_server.start()
    from checker.cli import main as run

    return run(sys.argv[1:], fork_server=fork_server_started)
