"""An evaluation candidate is refused at each of the four layers, each tested on its own
(spec 001 §3 and §8.4; ARCHITECTURE.md §5):

(a) eligibility is derived from the run type, whatever the writer's output says;
(b) the WriterOutput contract refuses acceptanceEligible outside production;
(c) the accept entry refuses it even when the database layer is removed;
(d) the database refuses raw SQL that would make it eligible or ACCEPTED.
"""

from __future__ import annotations

import pytest
from pydantic import ValidationError
from sqlalchemy import func, select, text
from sqlalchemy.exc import IntegrityError

from muse.context.output_contracts import WriterOutput
from muse.core.errors import InvalidInput
from muse.flow import production, triggers
from muse.flow.accept import accept_candidate
from muse.flow.deadlines import start_node
from muse.flow.eligibility import acceptance_eligible, run_acceptance_eligible
from muse.flow.tables import candidates, decisions, runs
from muse.flow.transitions import move_candidate, move_run
from muse.store.tables import jobs
from muse.works import catalog
from muse.works.tables import prose_blocks

from .conftest import NEXT
from .test_state_machine import (
    RUN_PATHS,
    candidate_in_state,
    insert_candidate,
    insert_run,
    new_work,
    row,
)


@pytest.fixture
def engine(engine):
    """These tests read evaluation rows back, which production reads never see (muse.flow.zones:
    a fifth layer, tested in test_zone.py); they look through the zone to test the other four."""
    return engine.execution_options(muse_zone="all")


# -- (a) derived from the run ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("run_type", "mode", "eligible"),
    [
        ("production", "production", True),
        ("production", "diagnostic_only", False),
        ("evaluation", "production", False),
        ("evaluation", "diagnostic_only", False),
    ],
)
def test_eligibility_is_derived_from_run_type_and_mode(engine, run_type, mode, eligible):
    assert acceptance_eligible(run_type, mode) is eligible
    work_id = new_work(engine)
    with engine.begin() as conn:
        run_id = insert_run(conn, work_id, run_type=run_type, mode=mode)
        assert run_acceptance_eligible(conn, run_id) is eligible


def test_evaluation_runs_candidate_is_ineligible_whatever_the_writer_says(
    engine, book, monkeypatch
):
    """The real pipeline, on a run inserted as an evaluation run in production mode: the
    WriterOutput says eligible (its mode is production), the stored candidate is not."""

    def evaluation_run(conn, work_id, chapter, as_of, provider, model):
        run_id = insert_run(
            conn, work_id, run_type="evaluation", target_chapter=chapter, as_of=as_of
        )
        start_node(conn, run_id, "validating_context")
        return run_id

    monkeypatch.setattr(production, "_insert_run", evaluation_run)
    summary = production.write_chapter(engine, book, NEXT, provider="offline", model="offline-1")
    assert summary.state == "shadow_ready", summary
    cand = row(engine, candidates, summary.candidate_id)
    assert cand["writer_output"]["acceptanceEligible"] is True  # what the writer side claimed
    assert cand["acceptance_eligible"] is False  # what the run type decides
    with pytest.raises(InvalidInput, match="评测或诊断候选永远不能成为正式正文"):
        accept_candidate(engine, summary.candidate_id)


# -- (b) the contract ---------------------------------------------------------------------------


def _output(**over) -> dict:
    wire = {
        "runId": "run_1",
        "attempt": 1,
        "mode": "production",
        "qualityPolicyVersion": "writer-production-v1",
        "contextSnapshotId": "ctx_1",
        "contextSnapshotSha256": "0" * 64,
        "candidateVersion": 1,
        "candidateSha256": "1" * 64,
        "acceptanceEligible": True,
        "candidateBody": "正文。",
        "claimLedger": [],
        "evidenceRequests": [],
        "newSettingDeclarations": [],
        "selfCheck": {},
    }
    return {**wire, **over}


@pytest.mark.parametrize(
    "over",
    [
        {"mode": "diagnostic_only"},
        {"qualityPolicyVersion": "writer-eval-v1"},
        {"mode": "diagnostic_only", "qualityPolicyVersion": "writer-eval-v1"},
    ],
)
def test_contract_refuses_eligibility_outside_production(over):
    with pytest.raises(ValidationError, match="acceptanceEligible 只能在生产模式"):
        WriterOutput.model_validate(_output(**over))
    ineligible = WriterOutput.model_validate(_output(**over, acceptanceEligible=False))
    assert ineligible.acceptance_eligible is False


def test_contract_accepts_an_eligible_production_output():
    assert WriterOutput.model_validate(_output()).acceptance_eligible is True


# -- (c) the accept entry, with the database layer removed --------------------------------------


def _drop_triggers(engine) -> None:
    with engine.begin() as conn:
        for statement in triggers.drop_statements(conn.dialect.name):
            conn.exec_driver_sql(statement)


def _waiting_candidate(engine, work_id: int, *, eligible: bool, **run_over) -> tuple[str, str]:
    """A PASSED candidate of a run in shadow_ready, moved by the code's own transitions."""
    with engine.begin() as conn:
        run_id = insert_run(conn, work_id, **run_over)
        for step in RUN_PATHS["shadow_ready"]:
            move_run(conn, run_id, step)
        cand_id = insert_candidate(conn, run_id, work_id, eligible=eligible)
        for step in ("CHECKING", "PASSED"):
            move_candidate(conn, cand_id, step)
    return run_id, cand_id


@pytest.mark.parametrize(
    "run_over",
    [{"run_type": "evaluation"}, {"mode": "diagnostic_only"}],
    ids=["evaluation", "diagnostic"],
)
def test_accept_entry_refuses_even_without_the_database_layer(engine, run_over):
    _drop_triggers(engine)
    work_id = new_work(engine)
    # without triggers the database lets a forged eligible evaluation candidate in …
    run_id, cand_id = _waiting_candidate(engine, work_id, eligible=True, **run_over)
    assert row(engine, candidates, cand_id)["acceptance_eligible"] is True
    # … and the accept entry still refuses it, before writing anything
    with pytest.raises(InvalidInput, match="评测或诊断候选永远不能成为正式正文"):
        accept_candidate(engine, cand_id)
    assert row(engine, candidates, cand_id)["state"] == "PASSED"
    assert row(engine, runs, run_id)["state"] == "shadow_ready"
    with engine.connect() as conn:
        assert conn.execute(select(func.count()).select_from(decisions)).scalar() == 0
        assert conn.execute(select(func.count()).select_from(jobs)).scalar() == 0
        assert catalog.latest_chapter_number(conn, work_id) is None


# -- (d) the database ---------------------------------------------------------------------------


def _raw(engine, sql: str, **params) -> None:
    with engine.begin() as conn:
        conn.execute(text(sql), params)


def test_database_refuses_raw_sql_that_would_accept_an_evaluation_candidate(engine):
    work_id = new_work(engine)
    run_id, cand_id = candidate_in_state(engine, work_id, "PASSED", run_type="evaluation")
    with pytest.raises(IntegrityError, match="acceptance eligible"), engine.begin() as conn:
        insert_candidate(conn, run_id, work_id, eligible=True)
    refused = {
        "UPDATE candidates SET state = 'ACCEPTED', revision = revision + 1 WHERE id = :id": (
            "can be ACCEPTED"
        ),
        "UPDATE candidates SET acceptance_eligible = TRUE WHERE id = :id": "identity",
        "UPDATE candidates SET acceptance_eligible = TRUE, state = 'ACCEPTED',"
        " revision = revision + 1 WHERE id = :id": "identity",
    }
    for sql, message in refused.items():
        with pytest.raises(IntegrityError, match=message):
            _raw(engine, sql, id=cand_id)
    for sql in (
        "UPDATE runs SET run_type = 'production' WHERE id = :id",
        "UPDATE runs SET mode = 'production', run_type = 'production' WHERE id = :id",
    ):
        with pytest.raises(IntegrityError, match="identity"):
            _raw(engine, sql, id=run_id)
    assert row(engine, candidates, cand_id)["state"] == "PASSED"


def test_no_evaluation_candidate_is_ever_accepted_or_canonical(engine):
    """Spec 001 §8.4, as a query: no evaluation candidate is ACCEPTED, and no canonical prose
    block is attributed to one."""
    work_id = new_work(engine)
    _, cand_id = candidate_in_state(engine, work_id, "PASSED", run_type="evaluation")
    with pytest.raises(IntegrityError):
        _raw(
            engine,
            "UPDATE candidates SET state = 'ACCEPTED', revision = revision + 1 WHERE id = :id",
            id=cand_id,
        )
    with engine.connect() as conn:
        accepted = conn.execute(
            select(func.count())
            .select_from(candidates.join(runs, runs.c.id == candidates.c.run_id))
            .where(runs.c.run_type == "evaluation", candidates.c.state == "ACCEPTED")
        ).scalar()
        attributed = [
            a
            for (a,) in conn.execute(select(prose_blocks.c.attribution))
            if (a or {}).get("candidateId") == cand_id
        ]
    assert (accepted, attributed) == (0, [])
