"""Author decisions: discard and edit-and-merge, end to end on the marked book."""

import getpass

import pytest
from sqlalchemy import func, select

from muse.core.canonical import sha256_hex
from muse.core.errors import InvalidInput
from muse.flow import queries
from muse.flow.accept import accept_candidate
from muse.flow.decisions import decision_actor, discard_candidate
from muse.flow.edit_merge import _start, edit_candidate
from muse.flow.tables import candidates, decisions, run_events, runs
from muse.flow.transitions import move_candidate, move_run
from muse.works import catalog
from muse.works.canonical import add_chapter
from tests.support.fakes import write_ready
from tests.support.marked_book import NEXT

AUTHOR_LINE = "林远回头望了一眼，山雾正浓。"


def _row(engine, table, id_):
    with engine.connect() as conn:
        return conn.execute(select(table).where(table.c.id == id_)).mappings().one()


def _count(engine, table, *where):
    with engine.connect() as conn:
        return conn.execute(select(func.count()).select_from(table).where(*where)).scalar()


def _edited(body: str) -> str:
    """The author inserts one sentence after the first paragraph (CRLF, as an editor may save)."""
    first, rest = body.split("\n\n", 1)
    return (first + AUTHOR_LINE + "\n\n" + rest).replace("\n", "\r\n")


# --- discard -------------------------------------------------------------------------------


def test_discard_ends_the_run_keeps_the_candidate_and_leaves_canon_alone(engine, book):
    summary = write_ready(engine, book, NEXT)
    outcome = discard_candidate(engine, summary.candidate_id, command_id="d-1", actor="lin")
    assert (outcome.state, outcome.run_state, outcome.repeated) == (
        "DISCARDED",
        "discarded",
        False,
    )
    assert _row(engine, candidates, summary.candidate_id)["state"] == "DISCARDED"
    assert _row(engine, runs, summary.run_id)["state"] == "discarded"
    with engine.connect() as conn:
        assert catalog.latest_chapter_number(conn, book) == NEXT - 1
        listed = queries.list_candidates(conn, book, NEXT)
        decision = conn.execute(select(decisions)).mappings().one()
    assert [(c["id"], c["state"]) for c in listed] == [(summary.candidate_id, "DISCARDED")]
    assert (decision["kind"], decision["actor"], decision["command_id"]) == (
        "discard",
        "lin",
        "d-1",
    )
    assert decision["outcome"] == "DISCARDED" and decision["created_at"] is not None
    assert decision["detail"]["previousState"] == "PASSED"


def test_same_discard_command_twice_has_one_effect(engine, book):
    summary = write_ready(engine, book, NEXT)
    first = discard_candidate(engine, summary.candidate_id, command_id="d-1")
    second = discard_candidate(engine, summary.candidate_id, command_id="d-1")
    assert second.repeated and (second.state, second.decision_id) == (
        "DISCARDED",
        first.decision_id,
    )
    assert _count(engine, decisions) == 1
    # A default command id is the same key, so a plain retry is one effect too.
    other = write_ready(engine, book, NEXT)
    discard_candidate(engine, other.candidate_id)
    assert discard_candidate(engine, other.candidate_id).repeated


def test_other_commands_on_a_decided_candidate_are_refused_with_its_state(engine, book):
    summary = write_ready(engine, book, NEXT)
    discard_candidate(engine, summary.candidate_id)
    with pytest.raises(InvalidInput, match="DISCARDED"):
        accept_candidate(engine, summary.candidate_id)
    with pytest.raises(InvalidInput, match="已丢弃（DISCARDED）"):
        edit_candidate(engine, summary.candidate_id, "作者的新稿。")
    accepted = write_ready(engine, book, NEXT)
    assert accept_candidate(engine, accepted.candidate_id).accepted
    with pytest.raises(InvalidInput, match="已采纳（ACCEPTED）"):
        discard_candidate(engine, accepted.candidate_id, command_id="late")
    assert _row(engine, candidates, accepted.candidate_id)["state"] == "ACCEPTED"


def test_a_command_id_reused_for_another_decision_is_refused(engine, book):
    summary, other = write_ready(engine, book, NEXT), write_ready(engine, book, NEXT)
    discard_candidate(engine, summary.candidate_id, command_id="k")
    with pytest.raises(InvalidInput, match="已用于另一个决定"):
        discard_candidate(engine, other.candidate_id, command_id="k")
    assert _row(engine, candidates, other.candidate_id)["state"] == "PASSED"


@pytest.mark.parametrize("earlier", ["discard this", "discard another", "edit this"])
def test_a_command_id_of_another_decision_is_never_a_repeated_accept(engine, book, earlier):
    first = write_ready(engine, book, NEXT)
    if earlier == "discard this":
        discard_candidate(engine, first.candidate_id, command_id="k")
        target, kind = first.candidate_id, "discard"
    elif earlier == "discard another":
        target, kind = write_ready(engine, book, NEXT).candidate_id, "discard"
        discard_candidate(engine, first.candidate_id, command_id="k")
    else:
        body = _row(engine, candidates, first.candidate_id)["body"]
        edited = edit_candidate(engine, first.candidate_id, _edited(body), command_id="k")
        assert edited.state == "PASSED", edited
        target, kind = edited.new_candidate_id, "edit_merge"
    state_before = _row(engine, candidates, target)["state"]
    with pytest.raises(InvalidInput, match=f"命令 ID k 已用于另一个决定（{kind}"):
        accept_candidate(engine, target, command_id="k")
    assert _count(engine, decisions) == 1
    assert _row(engine, candidates, target)["state"] == state_before


@pytest.mark.parametrize("decide", ["accept", "discard", "edit_merge"])
@pytest.mark.parametrize("given", [None, "lin"])
def test_one_actor_rule_for_every_decision(engine, book, decide, given):
    candidate_id = write_ready(engine, book, NEXT).candidate_id
    if decide == "accept":
        assert accept_candidate(engine, candidate_id, actor=given).accepted
    elif decide == "discard":
        discard_candidate(engine, candidate_id, actor=given)
    else:
        body = _row(engine, candidates, candidate_id)["body"]
        edit_candidate(engine, candidate_id, _edited(body), actor=given)
    with engine.connect() as conn:
        actors = conn.execute(select(decisions.c.kind, decisions.c.actor)).all()
    assert [tuple(a) for a in actors] == [(decide, given or getpass.getuser())]


def test_the_actor_falls_back_to_author_without_an_os_user(monkeypatch):
    def no_user() -> str:
        raise OSError("no user")

    monkeypatch.setattr(getpass, "getuser", no_user)
    assert (decision_actor(None), decision_actor("lin")) == ("author", "lin")


# --- edit and merge ------------------------------------------------------------------------


def test_edit_makes_a_new_checked_version_that_can_be_accepted(engine, book):
    summary = write_ready(engine, book, NEXT)
    v1 = _row(engine, candidates, summary.candidate_id)
    outcome = edit_candidate(engine, v1["id"], _edited(v1["body"]), actor="lin")
    assert (outcome.state, outcome.run_state, outcome.new_version) == ("PASSED", "shadow_ready", 2)
    v2 = _row(engine, candidates, outcome.new_candidate_id)
    expected_body = _edited(v1["body"]).replace("\r\n", "\n")
    assert v2["body"] == expected_body and v2["sha256"] == sha256_hex(expected_body)
    assert (v2["run_id"], v2["version"], v2["acceptance_eligible"]) == (summary.run_id, 2, True)
    assert v2["report"]["candidateSha256"] == v2["sha256"]
    assert v2["report"]["candidateVersion"] == 2
    assert v2["report"]["semantic"]["candidateSha256"] == v2["sha256"]
    assert v2["report"]["attribution"] == "author_edit"
    assert v2["writer_output"]["candidateVersion"] == 2
    # The writer's claims survive where their sentences did, re-located in the new body.
    old_claims, new_claims = (c["writer_output"]["claimLedger"] for c in (v1, v2))
    assert len(new_claims) == len(old_claims) > 0
    for old, new in zip(old_claims, new_claims, strict=True):
        assert new["candidateSha256"] == v2["sha256"]
        quote = v1["body"][old["startCodePoint"] : old["endCodePoint"]]
        assert v2["body"][new["startCodePoint"] : new["endCodePoint"]] == quote
    assert _row(engine, candidates, v1["id"])["state"] == "ARCHIVED"
    with engine.connect() as conn:
        nodes = [
            r.node
            for r in conn.execute(
                select(run_events.c.node)
                .where(run_events.c.run_id == summary.run_id, run_events.c.status == "ok")
                .order_by(run_events.c.id)
            )
        ]
        decision = conn.execute(select(decisions)).mappings().one()
    assert nodes[-4:] == ["edited_candidate", "mechanical_gate", "semantic_detector", "detecting"]
    assert (decision["kind"], decision["actor"]) == ("edit_merge", "lin")
    assert decision["detail"]["attribution"] == "author_edit"

    accepted = accept_candidate(engine, v2["id"])
    assert accepted.accepted, accepted.message
    with engine.connect() as conn:
        assert catalog.get_chapter_text(conn, book, NEXT).text == expected_body


def test_rejected_edit_cannot_be_accepted(engine, book):
    summary = write_ready(engine, book, NEXT)
    v1 = _row(engine, candidates, summary.candidate_id)
    without_su_qing = v1["body"].replace("苏晴", "她")
    outcome = edit_candidate(engine, v1["id"], without_su_qing)
    assert (outcome.state, outcome.run_state) == ("REJECTED", "blocked_user_action")
    assert any(f["kind"] == "required_entity_missing" for f in outcome.findings)
    with pytest.raises(InvalidInput, match="REJECTED"):
        accept_candidate(engine, outcome.new_candidate_id)
    with engine.connect() as conn:
        assert catalog.latest_chapter_number(conn, book) == NEXT - 1


def test_semantic_rejection_of_the_edit_blocks_it(engine, book, scripted):
    def report(task_input):
        body = task_input["candidate"]["body"]
        if AUTHOR_LINE not in body:
            return {"verdict": "passed", "issues": [], "evidenceGaps": [], "summary": "通过"}
        issue = {
            "category": "fact_conflict",
            "severity": "blocking",
            "quote": AUTHOR_LINE,
            "explanation": "与细纲硬事件冲突",
            "evidence": ["fe-outline-H1"],
        }
        return {"verdict": "rejected", "issues": [issue], "evidenceGaps": [], "summary": "冲突"}

    scripted("detector", "check").reply(report)
    summary = write_ready(engine, book, NEXT)
    v1 = _row(engine, candidates, summary.candidate_id)
    outcome = edit_candidate(engine, v1["id"], _edited(v1["body"]))
    assert outcome.state == "REJECTED"
    report_ = _row(engine, candidates, outcome.new_candidate_id)["report"]
    assert report_["semantic"]["status"] == "rejected"
    quote = [f for f in report_["semantic"]["findings"] if f["severity"] == "high"][0]["quote"]
    assert quote == AUTHOR_LINE
    with pytest.raises(InvalidInput):
        accept_candidate(engine, outcome.new_candidate_id)


def test_accept_before_the_recheck_is_refused(engine, book):
    """The edit committed, the re-check never ran (a crash): the new version is a DRAFT."""
    summary = write_ready(engine, book, NEXT)
    v1 = _row(engine, candidates, summary.candidate_id)
    with engine.begin() as conn:
        started = _start(conn, v1["id"], _edited(v1["body"]), None, "crash-1", "author")
    new_id = started.new_candidate
    with pytest.raises(InvalidInput, match="DRAFT"):
        accept_candidate(engine, new_id)
    with pytest.raises(InvalidInput, match="ARCHIVED"):  # nor is the superseded version
        accept_candidate(engine, v1["id"])


def test_preflight_refuses_an_edit_carrying_the_previous_versions_report(engine, book):
    """Even forced to PASSED with v1's report, v2 fails preflight: the report is bound to v1."""
    summary = write_ready(engine, book, NEXT)
    v1 = _row(engine, candidates, summary.candidate_id)
    with engine.begin() as conn:
        started = _start(conn, v1["id"], _edited(v1["body"]), None, "crash-1", "author")
        new_id = started.new_candidate
        move_run(conn, summary.run_id, "detecting")
        move_candidate(conn, new_id, "CHECKING")
        move_candidate(conn, new_id, "PASSED", report=v1["report"])
        move_run(conn, summary.run_id, "shadow_ready")
    outcome = accept_candidate(engine, new_id)
    assert outcome.state == "quality_stale"
    with engine.connect() as conn:
        assert catalog.latest_chapter_number(conn, book) == NEXT - 1


def test_stale_expected_revision_changes_nothing_and_keeps_the_text(engine, book):
    summary = write_ready(engine, book, NEXT)
    v1 = _row(engine, candidates, summary.candidate_id)
    text = _edited(v1["body"])
    outcome = edit_candidate(engine, v1["id"], text, expected_revision=3)
    assert outcome.state == "revision_conflict" and "修订版 3" in outcome.message
    assert _row(engine, candidates, v1["id"])["state"] == "PASSED"
    assert _row(engine, runs, summary.run_id)["state"] == "shadow_ready"
    assert _count(engine, candidates) == 1
    with engine.connect() as conn:
        detail = conn.execute(select(decisions.c.detail)).scalar_one()
    assert detail["editedBody"] == text.replace("\r\n", "\n")
    # The right revision (0: the chapter does not exist yet) goes through.
    assert edit_candidate(engine, v1["id"], text, expected_revision=0).state == "PASSED"


def test_canon_changed_since_the_run_began_is_a_conflict(engine, book):
    summary = write_ready(engine, book, NEXT)
    with engine.begin() as conn:
        add_chapter(conn, book, NEXT, "作者自写", "作者直接写入的正文。")
    v1 = _row(engine, candidates, summary.candidate_id)
    outcome = edit_candidate(engine, v1["id"], _edited(v1["body"]), expected_revision=1)
    assert outcome.state == "revision_conflict" and "0 → 1" in outcome.message
    assert _count(engine, candidates) == 1


def test_same_edit_twice_makes_one_version(engine, book):
    summary = write_ready(engine, book, NEXT)
    v1 = _row(engine, candidates, summary.candidate_id)
    first = edit_candidate(engine, v1["id"], _edited(v1["body"]))
    second = edit_candidate(engine, v1["id"], _edited(v1["body"]))
    assert second.repeated and second.new_candidate_id == first.new_candidate_id
    assert second.state == "PASSED"
    assert _count(engine, candidates) == 2


def test_edit_of_an_edit_and_unchanged_text(engine, book):
    summary = write_ready(engine, book, NEXT)
    v1 = _row(engine, candidates, summary.candidate_id)
    v2 = edit_candidate(engine, v1["id"], _edited(v1["body"]))
    body2 = _row(engine, candidates, v2.new_candidate_id)["body"]
    with pytest.raises(InvalidInput, match="完全相同"):
        edit_candidate(engine, v2.new_candidate_id, body2)
    v3 = edit_candidate(engine, v2.new_candidate_id, body2 + "\n\n钟声又响了一下。")
    assert (v3.new_version, v3.state) == (3, "PASSED")
    assert _row(engine, candidates, v2.new_candidate_id)["state"] == "ARCHIVED"
    with pytest.raises(InvalidInput, match="ARCHIVED"):
        edit_candidate(engine, v1["id"], _edited(v1["body"]) + "再改")


def _claim(cand, constraint_id: str) -> tuple[int, int]:
    for c in cand["writer_output"]["claimLedger"]:
        if c["claimId"].endswith(":" + constraint_id):
            return c["startCodePoint"], c["endCodePoint"]
    raise AssertionError(constraint_id)


def test_a_claim_follows_the_sentence_the_author_rewrote(engine, book):
    summary = write_ready(engine, book, NEXT)
    v1 = _row(engine, candidates, summary.candidate_id)
    start, end = _claim(v1, "H1")
    rewritten = "林远和苏晴在山门外道别，谁也没有回头。"
    outcome = edit_candidate(engine, v1["id"], v1["body"][:start] + rewritten + v1["body"][end:])
    assert outcome.state == "PASSED", outcome.message
    v2 = _row(engine, candidates, outcome.new_candidate_id)
    new_start, new_end = _claim(v2, "H1")
    assert v2["body"][new_start:new_end] == rewritten


def test_deleting_the_sentence_of_a_hard_event_blocks_and_names_it(engine, book):
    summary = write_ready(engine, book, NEXT)
    v1 = _row(engine, candidates, summary.candidate_id)
    start, end = _claim(v1, "H1")
    outcome = edit_candidate(engine, v1["id"], v1["body"][:start] + v1["body"][end:])
    assert outcome.state == "REJECTED"
    unlocated = [f for f in outcome.findings if f["kind"] == "claim_unlocated"]
    assert len(unlocated) == 1 and unlocated[0]["message"].startswith("H1")
    assert "作者删去" in unlocated[0]["message"]


@pytest.mark.parametrize("hostile", ["\x00", "\x1b[2J", "\u202e", "\u200b"])
def test_an_edit_with_a_hostile_character_is_refused_and_makes_no_version(engine, book, hostile):
    summary = write_ready(engine, book, NEXT)
    v1 = _row(engine, candidates, summary.candidate_id)
    body = v1["body"].replace("\n\n", "\n\n" + hostile, 1)
    with pytest.raises(InvalidInput, match="不可见或控制字符"):
        edit_candidate(engine, v1["id"], body, actor="lin")
    assert _count(engine, candidates, candidates.c.run_id == summary.run_id) == 1
    assert _row(engine, candidates, v1["id"])["state"] == "PASSED"
