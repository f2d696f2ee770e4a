"""Contradictions go to the conflict queue with both sides and their evidence; the author decides."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from muse.core.errors import InvalidInput
from muse.knowledge.cards import get_card, insert_card
from muse.knowledge.conflicts import list_conflicts, resolve_conflict
from muse.knowledge.contracts import CardStatus
from muse.knowledge.drafts import confirm_draft, list_drafts, reject_draft, submit_draft
from muse.knowledge.source_refs import ChapterTexts, locate_quote
from tests.support.cards import spec

BASE = {
    "summary": {"value": "石猴"},
    "identity": {"value": "美猴王"},
    "personality": {"value": "桀骜不驯"},
}


def _clash(conn, work, *, draft_identity="弼马温"):
    texts = ChapterTexts(conn, work)
    card_id = insert_card(
        conn,
        work,
        spec(
            fields={
                **BASE,
                "identity": {"value": "美猴王", "refs": [locate_quote(texts, 1, "美猴王")]},
            }
        ),
        CardStatus.confirmed,
    )
    outcome = submit_draft(
        conn,
        work,
        spec(
            fields={
                **BASE,
                "identity": {"value": draft_identity, "refs": [locate_quote(texts, 4, "弼马温")]},
                "goal": {"value": "长生"},
            }
        ),
    )
    return card_id, outcome


def test_a_contradiction_is_queued_with_both_sides_and_nothing_is_overwritten(conn, work):
    card_id, outcome = _clash(conn, work)
    [conflict] = list_conflicts(conn, work)
    assert outcome.conflicts == [conflict.id]
    assert (conflict.kind, conflict.subject, conflict.subject_label) == (
        "field",
        "field:identity",
        "字段「身份」",
    )
    assert conflict.confirmed_side["value"] == "美猴王"
    assert conflict.confirmed_side["refs"][0]["chapter"] == 1
    assert conflict.draft_side["value"] == "弼马温"
    assert conflict.draft_side["refs"][0]["quote"] == "弼马温"
    assert get_card(conn, card_id).fields["identity"].value == "美猴王"
    with pytest.raises(InvalidInput, match="还有 1 个未处理的冲突"):
        confirm_draft(conn, outcome.draft_id)
    assert "goal" not in get_card(conn, card_id).fields


@dataclass(frozen=True)
class Resolution:
    how: str
    value: str | None
    identity: str
    refs: set[int]


@pytest.mark.parametrize(
    "case",
    [
        Resolution("keep", None, "美猴王", {1}),
        Resolution("replace", None, "弼马温", {4}),
        Resolution("merge", None, "美猴王；弼马温", {1, 4}),
        Resolution("merge", "美猴王，后受封弼马温", "美猴王，后受封弼马温", {1, 4}),
    ],
    ids=lambda c: f"{c.how}-{c.value}",
)
def test_the_author_resolves_then_confirms_the_rest(conn, work, case):
    card_id, outcome = _clash(conn, work)
    [conflict] = list_conflicts(conn, work)
    resolved = resolve_conflict(conn, conflict.id, case.how, value=case.value)
    assert (resolved.status, resolved.resolution) == ("resolved", case.how)
    identity = get_card(conn, card_id).fields["identity"]
    assert identity.value == case.identity
    assert {r.chapter for r in identity.refs} == case.refs
    assert confirm_draft(conn, outcome.draft_id).status == "confirmed"
    card = get_card(conn, card_id)
    assert card.fields["identity"].value == case.identity, "confirmation does not undo the decision"
    assert card.fields["goal"].value == "长生"
    assert list_conflicts(conn, work) == []


def test_resolution_rules(conn, work):
    _, outcome = _clash(conn, work)
    [conflict] = list_conflicts(conn, work)
    with pytest.raises(InvalidInput, match="未知的处理方式"):
        resolve_conflict(conn, conflict.id, "ignore")
    with pytest.raises(InvalidInput, match="--value"):
        resolve_conflict(conn, conflict.id, "keep", value="x")
    resolve_conflict(conn, conflict.id, "keep")
    with pytest.raises(InvalidInput, match="已处理"):
        resolve_conflict(conn, conflict.id, "replace")


def test_rejecting_a_draft_dismisses_its_conflicts(conn, work):
    card_id, outcome = _clash(conn, work)
    reject_draft(conn, outcome.draft_id)
    assert list_conflicts(conn, work) == []
    assert [c.status for c in list_conflicts(conn, work, status=None)] == ["dismissed"]
    assert get_card(conn, card_id).fields["identity"].value == "美猴王"


@dataclass(frozen=True)
class Clash:
    name: str
    confirmed: dict
    draft: dict
    kind: str | None  # None: no contradiction, the draft merges


CLASHES = [
    Clash(
        "single-valued relation, other target",
        {"relations": [{"kind": "所属", "target": "花果山"}]},
        {"relations": [{"kind": "所属", "target": "天庭"}]},
        "relation",
    ),
    Clash(
        "relations that cannot both hold",
        {"relations": [{"kind": "盟友", "target": "牛魔王"}]},
        {"relations": [{"kind": "敌对", "target": "牛魔王"}]},
        "relation",
    ),
    Clash(
        "师父 and 徒弟 of the same card",
        {"relations": [{"kind": "师父", "target": "菩提祖师"}]},
        {"relations": [{"kind": "徒弟", "target": "菩提祖师"}]},
        "relation",
    ),
    Clash(
        "a second master is not a contradiction",
        {"relations": [{"kind": "师父", "target": "菩提祖师"}]},
        {"relations": [{"kind": "师父", "target": "唐僧"}]},
        None,
    ),
    Clash(
        "debut at another chapter",
        {"milestones": [{"chapter": 1, "cycle": "登场"}]},
        {"milestones": [{"chapter": 3, "cycle": "登场"}]},
        "debut",
    ),
    Clash("end state differs", {"end_state": "斗战胜佛"}, {"end_state": "齐天大圣"}, "plan"),
    Clash(
        "growth arc differs",
        {"growth_arc": [{"chapter": 7, "cycle": "退场"}]},
        {"growth_arc": [{"chapter": 9, "cycle": "退场"}]},
        "plan",
    ),
    Clash("end state added", {}, {"end_state": "斗战胜佛"}, None),
    Clash(
        "list field grows",
        {"fields": {**BASE, "abilities": {"value": ["筋斗云"]}}},
        {"fields": {**BASE, "abilities": {"value": ["七十二变"]}}},
        None,
    ),
]


@pytest.mark.parametrize("case", CLASHES, ids=lambda c: c.name)
def test_what_counts_as_a_contradiction(conn, work, case):
    card_id = insert_card(conn, work, spec(**case.confirmed), CardStatus.confirmed)
    outcome = submit_draft(conn, work, spec(**case.draft))
    conflicts = list_conflicts(conn, work)
    assert [c.kind for c in conflicts] == ([case.kind] if case.kind else [])
    if case.kind is None:
        confirm_draft(conn, outcome.draft_id)
        merged = get_card(conn, card_id)
        for key, value in case.draft.items():
            if key == "relations":
                assert all(
                    r.target in {x.target for x in merged.relations}
                    for r in spec(**case.draft).relations
                )
            elif key == "end_state":
                assert merged.end_state == value
        return
    before = get_card(conn, card_id)
    resolve_conflict(conn, conflicts[0].id, "replace")
    after = get_card(conn, card_id)
    assert after.revision == before.revision + 1
    assert confirm_draft(conn, outcome.draft_id).status == "confirmed"


def test_replacing_a_contradicted_relation_removes_the_old_one(conn, work):
    card_id = insert_card(
        conn, work, spec(relations=[{"kind": "盟友", "target": "牛魔王"}]), CardStatus.confirmed
    )
    submit_draft(conn, work, spec(relations=[{"kind": "敌对", "target": "牛魔王"}]))
    resolve_conflict(conn, list_conflicts(conn, work)[0].id, "replace")
    assert [(r.kind, r.target) for r in get_card(conn, card_id).relations] == [("敌对", "牛魔王")]


def test_merging_a_debut_keeps_both_and_the_earliest_counts(conn, work):
    card_id = insert_card(
        conn, work, spec(milestones=[{"chapter": 3, "cycle": "登场"}]), CardStatus.confirmed
    )
    submit_draft(conn, work, spec(milestones=[{"chapter": 1, "cycle": "登场"}]))
    resolve_conflict(conn, list_conflicts(conn, work)[0].id, "merge")
    assert sorted(m.chapter for m in get_card(conn, card_id).milestones) == [1, 3]


def test_a_contradiction_that_appears_after_submission_is_queued_at_confirmation(conn, work):
    outcome_a = submit_draft(conn, work, spec(fields={**BASE, "goal": {"value": "长生"}}))
    outcome_b = submit_draft(conn, work, spec(fields={**BASE, "goal": {"value": "称王"}}))
    assert outcome_b.target_card_id is None  # no confirmed card yet: both propose a new card
    confirm_draft(conn, outcome_a.draft_id)
    result = confirm_draft(conn, outcome_b.draft_id)
    assert result.status == "conflict" and len(result.conflicts) == 1
    assert [d.id for d in list_drafts(conn, work)] == [outcome_b.draft_id]
    card = get_card(conn, result.target_card_id)
    assert card.fields["goal"].value == "长生"
    resolve_conflict(conn, result.conflicts[0], "keep")
    assert confirm_draft(conn, outcome_b.draft_id).status == "confirmed"
    assert get_card(conn, card.id).fields["goal"].value == "长生"
