"""The frozen WriterContext: as-of rule, baseline, determinism, validation, coverage."""

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from muse.context.contracts import WriterContext
from muse.context.retrieval_plan import plan_id
from muse.context.writer_context import freeze_context, snapshot_sha256
from muse.core.errors import ContractViolation
from muse.planning.fine_outlines import load_confirmed
from muse.works.authorization import take_snapshot
from tests.support.marked_book import CHAPTERS, marker


def _freeze(engine, work_id, target, run_id="run_00000000000000000001", as_of=None):
    with engine.begin() as conn:
        section_id, outline = load_confirmed(conn, work_id, target)
        auth = take_snapshot(conn, work_id, "production")
        return freeze_context(
            conn,
            work_id=work_id,
            outline=outline,
            outline_section_id=section_id,
            run_id=run_id,
            attempt=1,
            as_of=target - 1 if as_of is None else as_of,
            authorization=auth,
        )


def test_baseline_is_the_four_previous_full_chapters(engine, marked_book):
    frozen = _freeze(engine, marked_book, 7)
    baseline = [p for p in frozen.context.prose_evidence if p.purpose == "baseline"]
    assert [p.chapter for p in baseline] == [3, 4, 5, 6]
    assert all(p.start == 0 and p.end == len(p.excerpt) for p in baseline)
    assert frozen.context.output_contract.narrative_baseline.chapters == (3, 4, 5, 6)


@settings(
    max_examples=15, suppress_health_check=[HealthCheck.function_scoped_fixture], deadline=None
)
@given(as_of=st.integers(min_value=1, max_value=CHAPTERS))
def test_nothing_after_as_of_reaches_the_context(engine, marked_book, as_of):
    frozen = _freeze(engine, marked_book, as_of + 1)
    text = json.dumps(frozen.context.wire(), ensure_ascii=False)
    for later in range(as_of + 1, CHAPTERS + 1):
        assert marker(later) not in text
    assert marker(as_of) in text  # the freeze point itself is read


def test_as_of_must_precede_target(engine, marked_book):
    with pytest.raises(ContractViolation, match="冻结点"):
        _freeze(engine, marked_book, 5, as_of=5)


def test_plan_id_ignores_run_id_and_manifest_is_stable(engine, marked_book):
    a = _freeze(engine, marked_book, 6, run_id="run_aaaaaaaaaaaaaaaaaaaa")
    b = _freeze(engine, marked_book, 6, run_id="run_bbbbbbbbbbbbbbbbbbbb")
    assert plan_id(a.context.retrieval_plan) == plan_id(b.context.retrieval_plan)
    assert a.context.manifest.manifest_id == b.context.manifest.manifest_id
    assert a.context.context_snapshot.sha256 != ""


def test_snapshot_hash_excludes_generation_time_only(engine, marked_book):
    frozen = _freeze(engine, marked_book, 6)
    wire = frozen.context.wire()
    assert snapshot_sha256(wire) == frozen.context.context_snapshot.sha256
    wire["contextSnapshot"]["generatedAt"] = "2099-01-01T00:00:00Z"
    assert snapshot_sha256(wire) == frozen.context.context_snapshot.sha256
    wire["fineOutline"]["title"] = "被篡改"
    assert snapshot_sha256(wire) != frozen.context.context_snapshot.sha256


def test_context_is_strict(engine, marked_book):
    wire = _freeze(engine, marked_book, 6).context.wire()
    wire["unexpected"] = 1
    with pytest.raises(ValueError):
        WriterContext.model_validate(wire)


def test_coverage_blocks_an_entity_nothing_proves(engine, marked_book):
    from muse.planning.fine_outlines import confirm_section, save_fine_outline
    from tests.support.marked_book import fine_outline

    data = fine_outline(CHAPTERS + 1)
    data["hard_constraints"]["required_entities"].append({"id": "E9", "name": "无名之人"})
    with engine.begin() as conn:
        confirm_section(conn, save_fine_outline(conn, marked_book, data))
    frozen = _freeze(engine, marked_book, CHAPTERS + 1)
    assert [(r.element_id, r.state) for r in frozen.blocking] == [("E9", "unsupported")]
    states = {r.element_id: r.state for r in frozen.context.evidence_coverage}
    assert states["E1"] == "card_gap" and states["H1"] == "declared_new"


def test_length_target_uses_previous_chapters_only(engine, marked_book):
    frozen = _freeze(engine, marked_book, 5)
    length = frozen.context.output_contract.length_target
    assert length["source"] == "median"
    assert length["sampleChapters"] == [1, 2, 3, 4]
    low, high = frozen.context.output_contract.generation_band
    a_low, a_high = frozen.context.output_contract.acceptance_band
    assert a_low <= low <= length["targetChars"] <= high <= a_high
