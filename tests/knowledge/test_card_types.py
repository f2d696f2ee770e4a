"""The card type registry and gate 1 (field coverage with the 「字段存疑：原因」 escape)."""

from __future__ import annotations

import pytest

from muse.core.errors import InvalidInput
from muse.knowledge.card_types import card_type, check_fields, parse_doubt, registry
from muse.knowledge.cards import validate_spec
from muse.knowledge.contracts import CardField, CardSpec


def test_registry_has_the_23_types_of_the_spec_with_chinese_labels():
    types = registry().types
    assert len(types) == 23
    assert len({t.key for t in types}) == 23 and len({t.label for t in types}) == 23
    # spec 001 §1A stage 2 names these explicitly
    for key in (
        "world",
        "power_system",
        "faction",
        "character",
        "item",
        "location",
        "event",
        "character_relation",
    ):
        assert card_type(key).key == key
    assert registry().version == "card-types-v1"


@pytest.mark.parametrize("kind", registry().types, ids=lambda t: t.key)
def test_every_type_requires_a_summary_and_has_labelled_fields(kind):
    assert kind.field("summary").required
    assert all(f.label and f.key.isascii() for f in kind.fields)
    assert any(f.required for f in kind.fields if f.key != "summary"), (
        "a type needs its own required field"
    )
    assert any(f.recommended for f in kind.fields), "a type needs recommended fields"
    assert len({f.label for f in kind.fields}) == len(kind.fields)


def test_type_is_found_by_key_or_chinese_label_and_unknown_type_is_named():
    assert card_type("人物") is card_type("character")
    with pytest.raises(InvalidInput, match="未知的卡片类型「神兽」"):
        card_type("神兽")


@pytest.mark.parametrize(
    ("written", "reason"),
    [
        ("字段存疑：原文未交代", "原文未交代"),
        ("字段存疑:原文未交代", "原文未交代"),
        ("  字段存疑： 第三卷再定 ", "第三卷再定"),
        ("字段存疑：", ""),
        ("字段存疑", ""),
        ("字段存疑的说法", None),
        ("美猴王", None),
        (["字段存疑：x"], None),
    ],
)
def test_doubt_marker(written, reason):
    assert parse_doubt(written) == reason


def _fields_without(kind, key):
    return {
        f.key: CardField(value=["x"] if f.list else "x")
        for f in kind.fields
        if f.required and f.key != key
    }


REQUIRED = [(t.key, f.key, f.label) for t in registry().types for f in t.fields if f.required]


@pytest.mark.parametrize(("type_key", "field_key", "label"), REQUIRED)
def test_missing_required_field_fails_naming_it_unless_doubted(type_key, field_key, label):
    kind = card_type(type_key)
    fields = _fields_without(kind, field_key)
    problems = validate_spec(CardSpec(type=type_key, name="甲", fields=fields))
    assert any(f"缺少必填字段「{label}」（{field_key}）" in p for p in problems)
    doubted = {**fields, field_key: CardField(doubt="原文尚未交代")}
    assert validate_spec(CardSpec(type=type_key, name="甲", fields=doubted)) == []


def test_doubt_without_reason_and_unknown_field_and_wrong_shape_fail():
    kind = card_type("character")
    base = _fields_without(kind, "")
    assert any(
        "存疑原因为空" in p
        for p in validate_spec(
            CardSpec(type="character", name="甲", fields={**base, "identity": CardField(doubt="")})
        )
    )
    assert any(
        "没有字段「法号」" in p
        for p in validate_spec(
            CardSpec(type="character", name="甲", fields={**base, "法号": CardField(value="x")})
        )
    )
    assert any(
        "应为一段文字" in p
        for p in validate_spec(
            CardSpec(
                type="character",
                name="甲",
                fields={**base, "identity": CardField(value=["a", "b"])},
            )
        )
    )


def test_recommended_fields_are_reported_not_blocking():
    kind = card_type("character")
    coverage = check_fields(kind, _fields_without(kind, ""))
    assert coverage.ok
    assert "speech_style" in coverage.missing_recommended


def test_a_field_holds_a_value_or_a_doubt_never_both_or_neither():
    with pytest.raises(ValueError):
        CardField(value="x", doubt="y")
    with pytest.raises(ValueError):
        CardField()
