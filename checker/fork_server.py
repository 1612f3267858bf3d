"""Workers that start with the analysis already imported.

A worker forked from this process imports libcst and the rules itself (0.3 s, on the
critical path of a cold run, and once per worker). The ``aigcheck`` program instead
starts multiprocessing's fork server first thing: one process that imports them while
this one starts up and reads the tree, and from which each worker forks ready. Library
callers (and tests, whose monkeypatches workers must inherit) keep plain ``fork``.
"""

from __future__ import annotations

import os

#: What a worker needs imported (``checker.engine.import_analysis``), and the worker code.
PRELOAD = ("checker.schedule", "checker.fixes", "checker.positions", "checker.project", "checker.rules")


def start() -> bool:
    """Start the fork server, importing :data:`PRELOAD`; False if it cannot be started."""
    try:
        from multiprocessing import forkserver

        # The server is a new `python -c`: without this, the working directory (the
        # checked tree, perhaps) would come first on its import path.
        os.environ.setdefault("PYTHONSAFEPATH", "1")
        forkserver.set_forkserver_preload(list(PRELOAD))
        forkserver.ensure_running()
    except (OSError, ValueError, ImportError):
        return False
    return True
