"""A run's owner: this process's identity, and whether the process an identity names is alive."""

from __future__ import annotations

from muse.core.process import owner_alive, process_owner
from tests.support.processes import dead_owner


def _with(owner: str, index: int, value: str) -> str:
    parts = owner.split("|")
    parts[index] = value
    return "|".join(parts)


def test_this_process_is_alive_and_an_ended_one_is_dead():
    assert owner_alive(process_owner()) is True
    assert owner_alive(dead_owner()) is False


def test_a_reused_pid_is_not_the_owner():
    me = process_owner()
    assert owner_alive(_with(me, 3, "1")) is False  # this pid, another start time


def test_another_boot_is_dead_and_what_cannot_be_known_is_unknown():
    me = process_owner()
    boot, namespace = me.split("|")[1].split("/", 1)
    if me.split("|")[0].partition("#")[2]:  # a machine id names this installation
        assert owner_alive(_with(me, 1, f"another-boot/{namespace}")) is False  # rebooted since
    assert owner_alive(_with(me, 1, f"{boot}/pid:[1]")) is None  # another container
    assert owner_alive(_with(me, 0, "another-host")) is None
    for unknown in (None, "", "garbage", "a|b|c"):
        assert owner_alive(unknown) is None


def test_a_machine_of_the_same_name_is_not_a_reboot_of_this_one():
    me = process_owner()
    name, _, machine = me.split("|")[0].partition("#")
    boot, namespace = me.split("|")[1].split("/", 1)
    rebooted = _with(me, 1, f"another-boot/{namespace}")
    assert owner_alive(_with(rebooted, 0, f"{name}#another-machine")) is None
    if machine:  # this installation has a machine id: a reboot of it is known
        assert owner_alive(rebooted) is False
    else:  # no machine id: a changed boot could be another machine of this name
        assert owner_alive(rebooted) is None
