"""Which folders are on the kernel's virtual file systems, which discovery never walks.

Their entries are no source, and walking them may never end: ``/proc/self/root`` leads
back to ``/``, ``/sys`` holds hundreds of thousands of entries, ``/dev/zero`` never ends.
They are known by where they are mounted on every Unix, and on Linux also by the type of
any mount of one (``/proc/self/mountinfo``), wherever it is (a chroot's ``proc``).
"""

from __future__ import annotations

import os
from functools import lru_cache

#: Where the kernel's virtual file systems are mounted on every Unix.
_VIRTUAL_FOLDERS = ("/proc", "/sys", "/dev")
#: Types of file system (as ``/proc/self/mountinfo`` names them) that hold no source and
#: may never end: process tables, kernel objects, devices, control groups.
_VIRTUAL_TYPES = frozenset(
    "autofs binfmt_misc bpf cgroup cgroup2 configfs debugfs devfs devpts devtmpfs efivarfs fusectl "
    "hugetlbfs mqueue nsfs proc pstore rpc_pipefs securityfs selinuxfs sysfs tracefs".split()
)


def virtual_file_system(path: str) -> str | None:
    """Which virtual file system the directory ``path`` is on (where it is mounted, or
    its type: ``/proc``, ``cgroup2``), or None for one that holds files. A directory on
    one is never walked."""
    real = os.path.realpath(path)
    for folder in _VIRTUAL_FOLDERS:
        if real == folder or real.startswith(folder + "/"):
            return folder
    try:
        kind = _mounted_types().get(os.stat(real).st_dev)
    except OSError:
        return None
    return kind if kind in _VIRTUAL_TYPES else None


@lru_cache(maxsize=1)
def _mounted_types() -> dict[int, str]:
    """The type of the file system on each device, from ``/proc/self/mountinfo`` (Linux;
    empty elsewhere). A line reads ``36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 - ext3 ...``:
    the device is the third field, the type the first after ``-``."""
    types: dict[int, str] = {}
    try:
        with open("/proc/self/mountinfo", encoding="utf-8", errors="surrogateescape") as stream:
            lines = stream.read().splitlines()
    except OSError:
        return types
    for line in lines:
        fields = line.split()
        separator = fields.index("-") if "-" in fields else len(fields)
        major, _, minor = fields[2].partition(":") if len(fields) > 2 else ("", "", "")
        if separator + 1 < len(fields) and major.isdigit() and minor.isdigit():
            types[os.makedev(int(major), int(minor))] = fields[separator + 1]
    return types
