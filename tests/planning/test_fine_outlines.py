"""Fine outlines: validated on save, shadow until confirmed, only confirmed ones feed generation."""

import pytest

from muse.core.canonical import hash_value
from muse.core.errors import InvalidInput, NotFound, StaleTransition
from muse.planning.contracts import FineOutline
from muse.planning.fine_outlines import confirm_section, load_confirmed, save_fine_outline
from muse.planning.sections import get_section
from muse.works.catalog import create_work


def outline(chapter: int = 2, **changes) -> dict:
    data = {
        "target_chapter": chapter,
        "title": "试炼",
        "hard_constraints": {
            "hard_events": [{"id": "H1", "text": "林远通过外门试炼"}],
            "result_direction": {"id": "R1", "text": "林远成为外门弟子"},
            "foreshadowing": [{"id": "F1", "action": "埋", "thread": "玉佩", "text": "玉佩发热"}],
            "chapter_end_hook": {"id": "K1", "text": "长老暗中注视"},
            "required_entities": [{"id": "E1", "name": "林远"}],
        },
    }
    data.update(changes)
    return data


@pytest.fixture
def work_id(engine):
    with engine.begin() as conn:
        return create_work(conn, "书")


def test_unconfirmed_outline_never_feeds_generation(engine, work_id):
    with engine.begin() as conn:
        section = save_fine_outline(conn, work_id, outline())
        with pytest.raises(NotFound, match="已确认"):
            load_confirmed(conn, work_id, 2)
        confirm_section(conn, section)
        section_id, loaded = load_confirmed(conn, work_id, 2)
    assert section_id == section
    assert loaded.hard_constraints.constraint_ids() == ["H1", "R1", "F1", "K1"]


def test_only_shadow_rows_can_be_confirmed(engine, work_id):
    with engine.begin() as conn:
        section = save_fine_outline(conn, work_id, outline())
        confirm_section(conn, section)
        with pytest.raises(StaleTransition, match="shadow"):
            confirm_section(conn, section)


def test_confirming_a_new_version_supersedes_the_old(engine, work_id):
    with engine.begin() as conn:
        first = save_fine_outline(conn, work_id, outline())
        confirm_section(conn, first)
        second = save_fine_outline(conn, work_id, outline(title="新版"))
        confirm_section(conn, second)
        section_id, loaded = load_confirmed(conn, work_id, 2)
    assert (section_id, loaded.title) == (second, "新版")


@pytest.mark.parametrize(
    ("payload", "message"),
    [
        ({}, "非空"),
        (outline(target_chapter=None), "target_chapter"),
        (outline(extra_field=1), "extra_field"),
        (
            {**outline(), "hard_constraints": {**outline()["hard_constraints"], "hard_events": []}},
            "hard_events",
        ),
        (
            {
                **outline(),
                "hard_constraints": {
                    **outline()["hard_constraints"],
                    "chapter_end_hook": {"id": "H1", "text": "重复"},
                },
            },
            "重复",
        ),
    ],
)
def test_invalid_outlines_are_refused_with_the_field_named(engine, work_id, payload, message):
    with pytest.raises(InvalidInput, match=message), engine.begin() as conn:
        save_fine_outline(conn, work_id, payload)


# A required entity as every saved outline held it before ``debut`` existed: the stored payload
# (and its hash) of such an outline must not change; ``debut`` is written only when set.
PRE_DEBUT_ENTITY = {"id": "E1", "name": "林远", "role": ""}


@pytest.mark.parametrize(
    ("entity", "stored"),
    [
        ({"id": "E1", "name": "林远"}, PRE_DEBUT_ENTITY),
        ({"id": "E1", "name": "林远", "debut": False}, PRE_DEBUT_ENTITY),
        ({"id": "E1", "name": "林远", "debut": True}, {**PRE_DEBUT_ENTITY, "debut": True}),
    ],
)
def test_debut_is_stored_only_when_set(engine, work_id, entity, stored):
    data = outline()
    data["hard_constraints"]["required_entities"] = [entity]
    with engine.begin() as conn:
        section = get_section(conn, save_fine_outline(conn, work_id, data))
    assert section.payload["hard_constraints"]["required_entities"] == [stored]
    expected = FineOutline.model_validate(data).model_dump(mode="json")
    expected["hard_constraints"]["required_entities"] = [stored]
    assert section.payload_sha256 == hash_value(expected)
