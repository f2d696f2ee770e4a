"""Preregistration: strict contract, explicit models, immutable sets, clear Chinese refusals."""

from __future__ import annotations

import pytest
import yaml
from sqlalchemy import select, text
from sqlalchemy.exc import DBAPIError

from muse.agents.errors import ModelNotAllowed
from muse.core.errors import InvalidInput, NotFound
from muse.evaluation.contracts import ARMS
from muse.evaluation.preregistration import parse_set, preregister
from muse.evaluation.sample_state import zone_engine
from muse.evaluation.tables import eval_runs, eval_sets

from .conftest import BOOKS
from .harness import set_yaml


def _doc(**changes) -> str:
    doc = yaml.safe_load(set_yaml("v1", {BOOKS[0]: 2}))
    for path, value in changes.items():
        target = doc
        *head, last = path.split("__")
        for key in head:
            target = target[int(key)] if key.isdigit() else target[key]
        target[last] = value
    return yaml.safe_dump(doc, allow_unicode=True)


def test_preregister_stores_the_set_and_one_run_per_sample(engine, books):
    registered = preregister(engine, parse_set(_doc()))
    assert registered.created and registered.samples == 2 and not registered.dry_run
    with zone_engine(engine).connect() as conn:
        rows = conn.execute(select(eval_runs).where(eval_runs.c.set_id == registered.set_id)).all()
    assert {r.state for r in rows} == {"preregistered"}
    assert {(r.target_chapter, r.as_of) for r in rows} == {(6, 5)}
    for r in rows:
        assert sorted(r.labels) == list(ARMS)
        assert len(set(r.labels.values())) == 3
        assert not any(arm in label for label in r.labels.values() for arm in ARMS)


def test_same_file_twice_is_a_no_op(engine, books):
    first = preregister(engine, parse_set(_doc()))
    again = preregister(engine, parse_set(_doc()))
    assert (again.set_id, again.created) == (first.set_id, False)


def test_a_changed_file_needs_a_new_version(engine, books):
    preregister(engine, parse_set(_doc()))
    with pytest.raises(InvalidInput, match="已预注册，且内容不同"):
        preregister(engine, parse_set(_doc(maxGenerationBudget={"maxOutputTokens": 9000})))
    assert preregister(engine, parse_set(_doc(evaluationSetVersion="v2"))).created


def test_the_database_refuses_to_change_a_set(engine, books):
    registered = preregister(engine, parse_set(_doc()))
    with pytest.raises(DBAPIError, match="immutable"), engine.begin() as conn:
        conn.execute(
            text("UPDATE eval_sets SET dry_run = :d WHERE id = :id"),
            {"d": True, "id": registered.set_id},
        )
    with engine.connect() as conn:
        assert conn.execute(select(eval_sets.c.dry_run)).scalar() is False


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("- 1\n- 2\n", "顶层必须是键值表"),
        ("a: [\n", "不是合法的 YAML"),
        (_doc(samples__0__sceneClass="chase"), "sceneClass"),
        (_doc(samples__0__targetChapter=1), "targetChapter"),
        (_doc(samples__1__sampleId="b1s01"), "sampleId 重复"),
        (_doc(samples__0__fineOutline={"title": "空"}), "hard_constraints"),
        (_doc(maxGenerationBudget={"maxOutputTokens": 10}), "maxOutputTokens"),
        (_doc(models={"writer": {"provider": "stub", "model": "deepseek-chat"}}), "detector"),
        (_doc(extra="x"), "extra"),
    ],
    ids=["list", "yaml", "scene", "chapter", "dupe", "outline", "budget", "models", "extra"],
)
def test_bad_sets_are_refused_with_a_reason(text, message):
    with pytest.raises(InvalidInput, match=message):
        parse_set(text)


def test_unknown_work_and_missing_oracle_chapter_are_refused(engine, books):
    with pytest.raises(NotFound, match="找不到作品「无此书」"):
        preregister(engine, parse_set(_doc(samples__0__work="无此书")))
    with pytest.raises(InvalidInput, match="只有 8 章正式正文"):
        preregister(engine, parse_set(_doc(samples__0__targetChapter=9)))
    with engine.connect() as conn:
        assert conn.execute(select(eval_sets)).first() is None  # nothing half-stored


def test_models_must_be_explicit_and_allowed(engine, books):
    with pytest.raises(ModelNotAllowed):
        preregister(engine, parse_set(_doc(models__judge__model="gpt-4o")))  # judge-fixed
    with pytest.raises(InvalidInput):
        parse_set(_doc(models__writer__provider=""))
