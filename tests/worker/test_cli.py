"""End to end through the CLI: muse write → muse accept → muse worker --once → muse drafts /
conflicts / facts show what the extraction proposed; muse jobs lists the job."""

from __future__ import annotations

import pytest

from muse.core.errors import InvalidInput
from muse.store.jobs import enqueue
from tests.support.qingyun import NEXT


def test_worker_once_after_accept_end_to_end(muse, engine, book):
    written = muse.json("write", str(NEXT), "-p", "offline", "-m", "offline-1")
    assert written["state"] == "shadow_ready", written
    accepted = muse.json("accept", written["candidate_id"])
    assert accepted["state"] == "extraction_queued"

    [queued] = muse.json("jobs", "--status", "queued")
    assert (queued["id"], queued["kind"]) == (accepted["job_id"], "extract_chapter")

    out = muse("worker", "--once").stdout
    assert "章后抽取" in out and "完成" in out and "共执行 1 个任务" in out

    drafts = muse.json("drafts")
    assert {d["name"] for d in drafts} == {"林远", "石敢"}
    [conflict] = muse.json("conflicts")
    assert conflict["card_name"] == "林远" and conflict["subject"] == "field:identity"
    facts = muse.json("facts")
    assert len(facts["deltas"]) == 3 and facts["ledger"] == []
    assert {d["status"] for d in facts["deltas"]} == {"proposed"}

    [done] = muse.json("jobs", "--status", "done")
    assert done["id"] == accepted["job_id"] and done["result"]["chapter"] == NEXT
    assert "已完成" in muse("jobs").stdout
    assert muse.json("worker", "--once") == []  # nothing due any more
    assert "没有到期的任务" in muse("worker", "--once").stdout

    # the author approves one delta: only then does it enter the fact ledger
    muse("facts", "approve", facts["deltas"][0]["id"])
    assert len(muse.json("facts")["ledger"]) == 1


def test_jobs_shows_a_failed_job_and_retry_requeues_it(muse, engine):
    with engine.begin() as conn:
        job_id = enqueue(conn, "from.the.future", {"x": 1}, max_attempts=2)
    [run] = muse.json("worker", "--once")
    assert (run["jobId"], run["outcome"]) == (job_id, "failed")
    listing = muse("jobs", "--status", "failed").stdout
    assert job_id in listing and "已失败" in listing and "未知的任务类型" in listing
    shown = muse.json("jobs", "show", job_id)
    assert shown["status"] == "failed" and "from.the.future" in shown["lastError"]
    retried = muse.json("jobs", "retry", job_id)
    assert (retried["status"], retried["attempts"]) == ("queued", 0)
    with pytest.raises(InvalidInput, match="只有失败的任务可以重试"):
        muse("jobs", "retry", job_id)


def test_jobs_rejects_an_unknown_status(muse):
    with pytest.raises(InvalidInput, match="未知的任务状态"):
        muse("jobs", "--status", "bogus")
