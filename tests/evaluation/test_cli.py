"""The commands an author runs: muse eval preregister|run|report, muse invariants, muse
candidate judge|judgements — on the real app and database, with the offline provider."""

from __future__ import annotations

import json

import pytest
from sqlalchemy import select

from muse.cli.main import app
from muse.core.clock import utc_now
from muse.core.errors import NotFound
from muse.evaluation.sample_state import zone_engine
from muse.evaluation.tables import candidate_judgements, eval_arms
from muse.flow.production import write_chapter
from muse.flow.tables import candidates, decisions
from muse.planning.fine_outlines import confirm_section, save_fine_outline
from muse.works.canonical import write_revision
from tests.evaluation.harness import BOOKS

from .harness import outline, set_yaml


@pytest.fixture
def dry_set(tmp_path, books):
    path = tmp_path / "set.yaml"
    path.write_text(
        set_yaml("dry-cli", {BOOKS[0]: 2}, judge_provider="offline", worker_provider="offline"),
        encoding="utf-8",
    )
    return path


def test_preregister_run_report_invariants(muse, dry_set):
    registered = muse.json("eval", "preregister", str(dry_set))
    assert registered["created"] and registered["dryRun"]
    again = muse("eval", "preregister", str(dry_set))
    assert "已预注册过" in again.stdout
    ran = muse.json("eval", "run", str(dry_set), "--yes")
    assert ran["estimate"]["samples"] == 2 and ran["estimate"]["calls"] == 16
    assert set(ran["states"]) == {"b1s01", "b1s02"}
    report = muse.json("eval", "report", "dry-cli")
    assert report["dryRun"] and report["gateA"]["verdict"] == "insufficient_evidence"
    text = muse("eval", "report", "dry-cli").stdout
    assert "【演练】" in text and "Gate A" in text and "C−A" in text
    assert muse.json("invariants") == {"ok": True, "violations": []}


def test_run_without_confirmation_sends_nothing(muse, dry_set):
    muse("eval", "preregister", str(dry_set))
    result = muse("eval", "run", "dry-cli", ok=False)
    assert result.exit_code == 1 and "--yes" in result.output
    assert muse.json("eval", "report", "dry-cli")["totals"]["calls"] == 0


def test_invariants_name_every_violation(muse, engine, dry_set):
    muse("eval", "preregister", str(dry_set))
    muse("eval", "run", "dry-cli", "--yes")
    with zone_engine(engine).begin() as conn:
        arm = conn.execute(select(eval_arms)).first()
        cand = conn.execute(select(candidates).where(candidates.c.id == arm.candidate_id)).first()
        write_revision(
            conn,
            cand.work_id,
            3,
            "伪造的正文。",
            expected_revision=1,
            origin="accept",
            attribution={"runId": arm.run_id, "candidateId": cand.id},
        )
        conn.execute(
            decisions.insert().values(
                id="dec_forged",
                command_id="forged",
                candidate_id=cand.id,
                kind="accept",
                actor="test",
                outcome="accepted",
                detail={},
                created_at=utc_now(),
            )
        )
        conn.execute(
            candidate_judgements.insert().values(
                id="cj_forged",
                candidate_id=cand.id,
                provider="offline",
                model="offline-1",
                receipt_id="call_x",
                sheet={},
                created_at=utc_now(),
            )
        )
    result = muse("invariants", "--json", ok=False)
    assert result.exit_code == 1
    found = {(v["invariant"], v["table"]) for v in json.loads(result.stdout)["violations"]}
    assert found == {
        ("canonical_from_evaluation", "prose_blocks"),
        ("evaluation_candidate_accepted", "decisions"),
        ("evaluation_quality_in_production", "candidate_judgements"),
    }
    assert "违反" in muse("invariants", ok=False).stdout


def test_candidate_judge_on_demand(muse, engine, books):
    work_id = books[BOOKS[1]]
    with engine.begin() as conn:
        confirm_section(conn, save_fine_outline(conn, work_id, {"target_chapter": 9, **outline(9)}))
    summary = write_chapter(engine, work_id, 9, provider="offline", model="offline-1")
    before = muse.json("candidate", "show", summary.candidate_id)
    judged = muse.json(
        "candidate", "judge", summary.candidate_id, "--provider", "offline", "--model", "offline-1"
    )
    assert set(judged["sheet"]) == {
        "settingFidelity",
        "outlineFidelity",
        "narrativeTension",
        "styleConsistency",
        "proseQuality",
    }
    quotes = [q for d in judged["sheet"].values() for q in d["located"]]
    assert quotes and all(q["found"] for q in quotes)
    after = muse.json("candidate", "show", summary.candidate_id)
    assert after["state"] == before["state"]  # never moves a state
    listed = muse.json("candidate", "judgements", summary.candidate_id)
    assert [j["id"] for j in listed] == [judged["id"]]
    # shown with the candidate: --json carries the stored judgement, the text shows its scores
    assert before["judgements"] == []
    assert [j["id"] for j in after["judgements"]] == [judged["id"]]
    assert after["judgements"][0]["sheet"] == judged["sheet"]
    text = muse("candidate", "show", summary.candidate_id).stdout
    assert "按需质量评审 1 次" in text and judged["id"] in text
    first = judged["sheet"]["settingFidelity"]
    assert f"设定与实体保真：{first['score']}" in text


def test_an_evaluation_candidate_cannot_be_judged_on_demand(muse, engine, dry_set):
    muse("eval", "preregister", str(dry_set))
    muse("eval", "run", "dry-cli", "--yes")
    with zone_engine(engine).connect() as conn:
        cand_id = conn.execute(select(eval_arms.c.candidate_id)).scalars().first()
    from typer.testing import CliRunner

    result = CliRunner().invoke(
        app, ["candidate", "judge", cand_id, "--provider", "offline", "--model", "offline-1"]
    )
    assert isinstance(result.exception, NotFound)


def test_rebuild_checks_the_invariants(muse, engine, dry_set):
    muse("eval", "preregister", str(dry_set))
    muse("eval", "run", "dry-cli", "--yes")
    muse("rebuild")  # clean: exit 0
    with zone_engine(engine).begin() as conn:
        cand_id = conn.execute(select(eval_arms.c.candidate_id)).scalars().first()
        conn.execute(
            candidate_judgements.insert().values(
                id="cj_forged",
                candidate_id=cand_id,
                provider="offline",
                model="offline-1",
                receipt_id="call_x",
                sheet={},
                created_at=utc_now(),
            )
        )
    result = muse("rebuild", ok=False)
    assert result.exit_code == 1 and "cj_forged" in result.output
