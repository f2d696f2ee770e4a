"""Who runs a run: this process's identity, and whether the process an identity names is alive.

A run records the process that last moved it (``runs.owner``). When that process dies (a server
restart, a killed ``muse write``), the run stays in its working node; its owner tells a sweep and
the workbench that nobody will ever finish it. The identity is ``host|boot|pid|start``:

* ``boot``: the kernel's boot id (``/proc/sys/kernel/random/boot_id``), so a reboot — where every
  process died and pids are handed out again — is seen, with the pid namespace
  (``/proc/self/ns/pid``), so two containers of one kernel never read each other's pids;
* ``start``: the process's start time in clock ticks since boot (``/proc/<pid>/stat`` field 22),
  so a pid reused by another process is not mistaken for the owner.

:func:`owner_alive` answers only for an owner on this host: ``False`` when the boot differs, the
pid is gone or now belongs to a process started at another time; ``True`` when it still runs;
``None`` (unknown) for another host or pid namespace, an unreadable ``/proc`` or an owner
recorded before there were owners. Unknown is never treated as dead: such runs are left to their deadline.
"""

from __future__ import annotations

import os
import socket
from functools import cache
from pathlib import Path

PROC = Path("/proc")


def _boot_id() -> str:
    try:
        boot = (PROC / "sys/kernel/random/boot_id").read_text().strip()
        namespace = os.readlink(PROC / "self/ns/pid")
    except OSError:
        return ""
    return f"{boot}/{namespace}"


def _start_ticks(pid: int) -> str | None:
    """The process's start time (field 22 of its stat line), None when it does not exist."""
    try:
        stat = (PROC / str(pid) / "stat").read_text()
    except OSError:
        return None
    # the command name (field 2) is in parentheses and may itself hold spaces or parentheses
    fields = stat[stat.rfind(")") + 2 :].split()
    return fields[19] if len(fields) > 19 else None


def _host() -> str:
    return socket.gethostname()[:100]  # the identity fits runs.owner (200)


@cache
def owner_of(pid: int) -> str:
    """The identity of process ``pid`` (this host, this boot)."""
    return f"{_host()}|{_boot_id()}|{pid}|{_start_ticks(pid) or ''}"


def process_owner() -> str:
    """This process's identity (cached per pid: a forked child gets its own)."""
    return owner_of(os.getpid())


def owner_alive(owner: str | None) -> bool | None:
    """Whether the process ``owner`` names still runs; None when that cannot be known here."""
    if not owner:
        return None
    parts = owner.split("|")
    if len(parts) != 4 or parts[0] != _host():
        return None
    _, boot, pid, start = parts
    here = _boot_id()
    if not boot or not here or not start or not pid.isdigit():
        return None
    if boot.split("/")[0] != here.split("/")[0]:
        return False  # the machine rebooted since: every process of that boot is gone
    if boot != here:
        return None  # another pid namespace (container) of this kernel: its pids are not ours
    ticks = _start_ticks(int(pid))
    if ticks is None:
        try:
            os.kill(int(pid), 0)
        except ProcessLookupError:
            return False
        except OSError:
            return None  # it exists but is not ours to look at
        return None  # it exists but its stat could not be read
    return ticks == start
