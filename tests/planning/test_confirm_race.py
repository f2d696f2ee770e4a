"""Two authors' sessions confirming at once: exactly one confirmed section remains."""

from __future__ import annotations

import threading
import time

from muse.core.errors import StaleTransition
from muse.planning import confirming
from muse.planning.confirming import confirm_and_record
from muse.planning.sections import list_sections
from tests.support.plans import foundation


def race(engine, section_ids: list[str]) -> list[object]:
    barrier, results = threading.Barrier(len(section_ids)), [None] * len(section_ids)

    def run(i: int) -> None:
        barrier.wait()
        try:
            results[i] = confirm_and_record(engine, section_ids[i])
        except Exception as err:  # noqa: BLE001 - reported to the test, not lost in the thread
            results[i] = err

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(section_ids))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    return results


def test_two_variants_confirmed_at_once_leave_one_confirmed(planner, engine, work_id, monkeypatch):
    original = confirming.record_check

    def slow_record(*args, **kwargs):  # widen the window between superseding and commit
        time.sleep(0.3)
        original(*args, **kwargs)

    monkeypatch.setattr(confirming, "record_check", slow_record)
    a = planner.save(0, foundation())
    b = planner.save(0, foundation(target_chapters=40))
    results = race(engine, [a, b])
    assert not [r for r in results if isinstance(r, Exception)], results
    with engine.connect() as conn:
        states = {
            s.id: s.state
            for s in list_sections(conn, work_id, stage=0, states=("confirmed", "superseded"))
        }
    assert sorted(states.values()) == ["confirmed", "superseded"]


def test_one_draft_confirmed_twice_at_once_is_confirmed_once(planner, engine, work_id):
    a = planner.save(0, foundation())
    results = race(engine, [a, a])
    assert sum(isinstance(r, StaleTransition) for r in results) == 1
    assert sum(isinstance(r, list) for r in results) == 1  # the other one confirmed
    with engine.connect() as conn:
        assert [s.state for s in list_sections(conn, work_id, stage=0)] == ["confirmed"]
