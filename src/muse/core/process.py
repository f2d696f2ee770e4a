"""Who runs a run: this process's identity, and whether the process an identity names is alive.

A run records the process that last moved it (``runs.owner``). When that process dies (a server
restart, a killed ``muse write``), the run stays in its working node; its owner tells a sweep and
the workbench that nobody will ever finish it. The identity is ``host|boot|pid|start``:

* ``boot``: the kernel's boot id (``/proc/sys/kernel/random/boot_id``), so a reboot — where every
  process died and pids are handed out again — is seen;
* ``start``: the process's start time in clock ticks since boot (``/proc/<pid>/stat`` field 22),
  so a pid reused by another process is not mistaken for the owner.

:func:`owner_alive` answers only for an owner on this host: ``False`` when the boot differs, the
pid is gone or now belongs to a process started at another time; ``True`` when it still runs;
``None`` (unknown) for another host, an unreadable ``/proc`` or an owner recorded before there
were owners. Unknown is never treated as dead: such runs are left to their deadline.
"""

from __future__ import annotations

import os
import socket
from functools import cache
from pathlib import Path

PROC = Path("/proc")


def _boot_id() -> str:
    try:
        return (PROC / "sys/kernel/random/boot_id").read_text().strip()
    except OSError:
        return ""


def _start_ticks(pid: int) -> str | None:
    """The process's start time (field 22 of its stat line), None when it does not exist."""
    try:
        stat = (PROC / str(pid) / "stat").read_text()
    except OSError:
        return None
    # the command name (field 2) is in parentheses and may itself hold spaces or parentheses
    fields = stat[stat.rfind(")") + 2 :].split()
    return fields[19] if len(fields) > 19 else None


@cache
def owner_of(pid: int) -> str:
    """The identity of process ``pid`` (this host, this boot)."""
    return f"{socket.gethostname()}|{_boot_id()}|{pid}|{_start_ticks(pid) or ''}"


def process_owner() -> str:
    """This process's identity (cached per pid: a forked child gets its own)."""
    return owner_of(os.getpid())


def owner_alive(owner: str | None) -> bool | None:
    """Whether the process ``owner`` names still runs; None when that cannot be known here."""
    if not owner:
        return None
    parts = owner.split("|")
    if len(parts) != 4 or parts[0] != socket.gethostname():
        return None
    _host, boot, pid, start = parts
    here = _boot_id()
    if not boot or not here or not start or not pid.isdigit():
        return None
    if boot != here:
        return False  # the machine rebooted since: every process of that boot is gone
    return _start_ticks(int(pid)) == start
