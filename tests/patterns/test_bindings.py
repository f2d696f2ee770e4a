"""Bindings: only what a confirmed assembly bound is loaded, pinned to the exact card version."""

from __future__ import annotations

from muse.patterns.bindings import Binding, bind_assembly, load_bound_patterns, load_confirmed_style
from muse.patterns.cards import save_pattern
from muse.patterns.contracts import PatternFile, StyleProfile
from muse.works.catalog import create_work

STYLE = StyleProfile(
    person_viewpoint="第一人称",
    sentence_style="长短句交错",
    narration_mix="对白为主",
    diction="冷峻",
    ai_blacklist=("不禁",),
    dialogue_style="简短",
    chapter_end_hook_style="悬念",
    sample_passage="样张",
)


def pattern(conn, summary: str):
    record, _ = save_pattern(
        conn,
        PatternFile(
            key="hook",
            name="钩子",
            category="钩子",
            summary=summary,
            steps=("一",),
            when_to_use="章末",
        ),
    )
    return record


def test_binding_pins_the_version_and_a_new_assembly_releases_the_old(engine):
    with engine.begin() as conn:
        work = create_work(conn, "书")
        v1 = pattern(conn, "第一版")
        bind_assembly(conn, work, "plan_a", [Binding(v1, "章末")], STYLE)
        v2 = pattern(conn, "第二版")
    with engine.connect() as conn:
        [bound] = load_bound_patterns(conn, work)
    assert (bound["id"], bound["version"], bound["contentSha256"]) == (v1.id, 1, v1.content_sha256)
    assert bound["content"]["summary"] == "第一版" and v2.version == 2
    with engine.begin() as conn:
        bind_assembly(
            conn,
            work,
            "plan_b",
            [Binding(v2, "章末")],
            STYLE.model_copy(update={"diction": "温润"}),
        )
    with engine.connect() as conn:
        assert [p["version"] for p in load_bound_patterns(conn, work)] == [2]
        style = load_confirmed_style(conn, work)
    assert (style["diction"], style["assemblySectionId"], style["aiBlacklist"]) == (
        "温润",
        "plan_b",
        ["不禁"],
    )


def test_a_work_without_a_confirmed_assembly_has_nothing_bound(engine):
    with engine.begin() as conn:
        work = create_work(conn, "书")
    with engine.connect() as conn:
        assert load_bound_patterns(conn, work) == [] and load_confirmed_style(conn, work) is None
