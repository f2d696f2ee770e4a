"""The save gates (spec 001 §1A, built): whitelist, fine outline chapter, non-empty payload, schema.

Each gate is enforced in code and, where the database can say it, again by a constraint.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from sqlalchemy import insert
from sqlalchemy.exc import IntegrityError

from muse.core.clock import utc_now
from muse.core.errors import InvalidInput
from muse.planning.saving import save_stage_section
from muse.planning.sections import insert_section, list_sections
from muse.planning.tables import plan_sections
from muse.planning.validation import PayloadInvalid
from tests.support.plans import assembly, fine, foundation, outline


def test_section_type_outside_the_whitelist_is_refused(engine, work_id):
    with pytest.raises(InvalidInput, match="白名单"), engine.begin() as conn:
        insert_section(conn, work_id, section_type="chapter", stage=None, payload={"a": 1})


def test_fine_outline_without_chapter_is_refused(engine, work_id):
    with pytest.raises(InvalidInput, match="target_chapter"), engine.begin() as conn:
        insert_section(conn, work_id, section_type="fine_outline", stage=4, payload={"a": 1})


@pytest.mark.parametrize("payload", [{}, [], "文本", None])
def test_payload_must_be_a_non_empty_object(engine, work_id, payload):
    with pytest.raises(InvalidInput, match="非空"), engine.begin() as conn:
        insert_section(conn, work_id, section_type="outline", stage=1, payload=payload)
    with pytest.raises(InvalidInput, match="非空"), engine.begin() as conn:
        save_stage_section(conn, work_id, 1, payload)


def test_stage_and_section_type_must_agree(engine, work_id):
    with pytest.raises(InvalidInput, match="规划类型应为"), engine.begin() as conn:
        insert_section(conn, work_id, section_type="setting", stage=1, payload={"a": 1})


def _row(work_id: int, **changes) -> dict:
    row = {
        "id": "plan_x",
        "work_id": work_id,
        "section_type": "outline",
        "stage": 1,
        "target_chapter": None,
        "state": "shadow",
        "payload": {"a": 1},
        "payload_sha256": "x",
        "created_at": utc_now(),
    }
    return row | changes


@pytest.mark.parametrize(
    "changes",
    [
        {"section_type": "chapter", "stage": None},
        {"section_type": "fine_outline", "stage": 4, "target_chapter": None},
        {"section_type": "setting", "stage": 1},
        {"state": "accepted"},
    ],
    ids=["whitelist", "fine_outline_chapter", "stage_type", "state"],
)
def test_the_database_refuses_what_the_code_refuses(engine, work_id, changes):
    with pytest.raises(IntegrityError), engine.begin() as conn:
        conn.execute(insert(plan_sections).values(**_row(work_id, **changes)))


@dataclass(frozen=True)
class SchemaCase:
    name: str
    stage: int
    payload: dict
    field: str
    message: str


def _drop(data: dict, path: str) -> dict:
    keys = [int(k) if k.isdigit() else k for k in path.split(".")]
    node = data
    for k in keys[:-1]:
        node = node[k]
    del node[keys[-1]]
    return data


def _set(data: dict, path: str, value) -> dict:
    keys = [int(k) if k.isdigit() else k for k in path.split(".")]
    node = data
    for k in keys[:-1]:
        node = node[k]
    node[keys[-1]] = value
    return data


SCHEMA_CASES = [
    SchemaCase(
        "work core field missing",
        0,
        _drop(foundation(), "work_core.theme"),
        "work_core.theme",
        "主题立意",
    ),
    SchemaCase(
        "length target incomplete",
        0,
        _drop(foundation(), "length_target.volume_count"),
        "length_target.volume_count",
        "分卷数",
    ),
    SchemaCase(
        "chars range reversed",
        0,
        _set(foundation(), "length_target.chars_per_chapter", {"min": 4000, "max": 3000}),
        "length_target.chars_per_chapter",
        "大于上限",
    ),
    SchemaCase(
        "volume without its goal", 1, _drop(outline(), "volumes.1.goal"), "volumes.1.goal", "卷目标"
    ),
    SchemaCase(
        "volume with empty conflict",
        1,
        _set(outline(), "volumes.0.core_conflict", " "),
        "volumes.0.core_conflict",
        "不能为空",
    ),
    SchemaCase(
        "doubt without reason",
        0,
        _set(foundation(), "work_core.tone", "字段存疑："),
        "work_core.tone",
        "必须写明原因",
    ),
    SchemaCase(
        "style field missing",
        3,
        _drop(assembly(), "style.sample_passage"),
        "style.sample_passage",
        "达标样张",
    ),
    SchemaCase(
        "unknown field", 1, _set(outline(), "volumes.0.mood", "x"), "volumes.0.mood", "没有的字段"
    ),
    SchemaCase(
        "fine outline without hook",
        4,
        _drop(fine(1), "hard_constraints.chapter_end_hook"),
        "hard_constraints.chapter_end_hook",
        "章末钩子",
    ),
    SchemaCase(
        "fine outline without entities",
        4,
        _set(fine(1), "hard_constraints.required_entities", []),
        "hard_constraints.required_entities",
        "至少要有 1 项",
    ),
]


@pytest.mark.parametrize("case", SCHEMA_CASES, ids=lambda c: c.name)
def test_schema_gate_refuses_and_names_the_field(engine, work_id, case: SchemaCase):
    with pytest.raises(PayloadInvalid) as refused, engine.begin() as conn:
        save_stage_section(conn, work_id, case.stage, case.payload)
    problems = {p.dotted: p for p in refused.value.problems}
    assert case.field in problems, refused.value.message
    assert case.message in problems[case.field].text()
    with engine.connect() as conn:
        assert list_sections(conn, work_id) == []


def test_doubtful_fields_are_saved_and_reported(engine, work_id):
    payload = _set(foundation(), "work_core.taboos", "字段存疑：题材尚未定")
    with engine.begin() as conn:
        saved = save_stage_section(conn, work_id, 0, payload)
    assert [(f.code, f.field) for f in saved.findings] == [("field_in_doubt", "work_core.taboos")]
