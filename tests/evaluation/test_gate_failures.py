"""Gate A failures, the dry-run rule and Gate B's unstable share, each through a real run."""

from __future__ import annotations

from muse.knowledge.cards import insert_card
from muse.knowledge.contracts import CardStatus
from muse.works.canonical import add_chapter
from muse.works.catalog import create_work
from tests.evaluation.harness import BOOKS, book_text
from tests.support.cards import spec

from .harness import flat, set_yaml
from .test_whole_runs import _run

ONE, TWO = BOOKS
FUTURE_NAME = "玄冥宗"


def _gates(report) -> tuple[tuple[str, str], tuple[str, str]]:
    return (
        (report["gateA"]["verdict"], report["gateA"]["rule"]),
        (report["gateB"]["verdict"], report["gateB"]["rule"]),
    )


def test_future_leak_fails_gate_a(engine, router):
    """A name first written in chapter 7 is in the replay lexicon; a candidate using it leaks."""
    with engine.begin() as conn:
        work_id = create_work(conn, ONE, default_chapter_chars=2500)
        for n in range(1, 9):
            extra = f"\n远处山头，{FUTURE_NAME}的旗号第一次出现。" if n == 7 else ""
            add_chapter(conn, work_id, n, f"第{n}章", book_text(n) + extra)
        insert_card(conn, work_id, spec(FUTURE_NAME, "world"), CardStatus.confirmed)

    def leak(draft, task_input):
        assert FUTURE_NAME not in str(task_input)  # the lexicon never reaches the writer
        draft["paragraphs"].append(f"他早听说过{FUTURE_NAME}的名头。")
        return draft

    router.writer_edit = leak
    report = _run(engine, router, set_yaml("leak", {ONE: 5}))
    checks = [a["check"] for s in report["samples"] for a in s["arms"].values()]
    assert all(c["futureLeaks"] >= 1 for c in checks)
    assert _gates(report) == (("failed", "future_leak"), ("failed", "gate_a_failed"))


def test_system_failure_fails_gate_a(engine, books, router):
    router.fail_judge_of = {"b1s06"}
    report = _run(engine, router, set_yaml("down", {ONE: 6}))
    failed = [s for s in report["samples"] if s["sampleId"] == "b1s06"][0]
    assert failed["state"] == "failed_model" and "评委 1" in failed["reason"]
    assert _gates(report)[0] == ("failed", "system_failure")


def test_schema_invalid_judge_fails_gate_a(engine, books, router):
    router.judge = lambda arm, dim, index, sample: 3.3 if sample == "b1s01" else 3.0
    report = _run(engine, router, set_yaml("schema", {ONE: 6}))
    states = {s["sampleId"]: s["state"] for s in report["samples"]}
    assert states["b1s01"] == "failed_contract"
    assert _gates(report)[0] == ("failed", "schema_invalid")


def test_c_arm_high_severity_fails_gate_a(engine, books, router):
    def drop_hook(draft, task_input):
        if task_input["mode"] == "production":  # only arm C runs the production policy
            draft["paragraphs"] = [p for p in draft["paragraphs"] if "钟响" not in p] or [
                {"text": "林远独自上山。"}
            ]
        return draft

    router.writer_edit = drop_hook
    report = _run(engine, router, set_yaml("c-high", {ONE: 5}))
    for s in report["samples"]:
        assert s["arms"]["C"]["check"]["highSeverity"] >= 1
        assert s["arms"]["A"]["check"]["highSeverity"] == 0
    assert _gates(report)[0] == ("failed", "c_high_severity")


def test_dry_run_is_only_ever_insufficient_evidence(engine, books, router):
    router.judge = flat(3.0)
    report = _run(engine, router, set_yaml("dry", {ONE: 5, TWO: 5}, judge_provider="offline"))
    assert report["dryRun"] is True
    assert _gates(report) == (
        ("insufficient_evidence", "dry_run"),
        ("insufficient_evidence", "dry_run"),
    )


def test_unstable_share_over_20_percent_is_insufficient(engine, books, router):
    unstable = {"b1s06", "b1s07", "b2s06"}

    def judge(arm, dim, index, sample):
        if sample in unstable and dim == "proseQuality":
            return {1: 1.0, 2: 3.0, 3: 5.0}[index]
        return 3.0 + (1.0 if arm == "C" and dim == "settingFidelity" else 0.0)

    router.judge = judge
    report = _run(engine, router, set_yaml("shaky", {ONE: 7, TWO: 6}))
    states = [s["state"] for s in report["samples"]]
    assert states.count("invalid_unstable") == 3
    assert _gates(report) == (
        ("passed", "gate_a_pass"),
        ("insufficient_evidence", "unstable_share"),
    )
