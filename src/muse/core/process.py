"""Who runs a run: this process's identity, and whether the process an identity names is alive.

A run records the process that last moved it (``runs.owner``). When that process dies (a server
restart, a killed ``muse write``), the run stays in its working node; its owner tells a sweep and
the workbench that nobody will ever finish it. The identity is ``host|boot|pid|start``:

* ``host``: the host name and the machine id (``/etc/machine-id``), so two machines of one name
  are two hosts;
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


def _machine_id() -> str:
    """This installation's id (systemd's /etc/machine-id, or D-Bus's), "" when there is none."""
    for path in (Path("/etc/machine-id"), Path("/var/lib/dbus/machine-id")):
        try:
            found = path.read_text().strip()
        except OSError:
            continue
        if found:
            return found[:32]
    return ""


def _host() -> str:
    """``hostname#machine-id``: two machines that share a host name (and a PostgreSQL database)
    are still two hosts, so a run of the other machine is never taken for one of a rebooted
    this one. The identity fits runs.owner (200)."""
    return f"{socket.gethostname()[:80]}#{_machine_id()}"


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
        # the machine rebooted since, and every process of that boot is gone: known only when the
        # host part names this installation (a machine id), not merely a shared host name
        return False if parts[0].partition("#")[2] else None
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
