"""Cards as an index in the WriterContext: hits, stateAsOf, re-read by pointers, coverage."""

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from muse.context.writer_context import freeze_context
from muse.knowledge.card_import import import_cards_yaml
from muse.knowledge.cards import load_cards
from muse.planning.fine_outlines import confirm_section, load_confirmed, save_fine_outline
from muse.works.authorization import take_snapshot
from tests.support.marked_book import CHAPTERS, fine_outline, marker

CARDS = """
格式: muse-cards-v1
卡片:
  - 类型: 人物
    名称: 林远
    别名: [{名称: 林师兄, 起始章: 7}]
    字段:
      简介: 山中少年。
      身份: 外门弟子
      性格: 沉静
    演变历程:
      - {章: 1, 周期: 登场, 台阶: 出山, 出处: [{章: 1, 引文: 林远在第1章里行走山间}]}
      - {章: 2, 周期: 成长, 台阶: 入门, 出处: [{章: 2, 引文: 林远在第2章里行走山间}]}
      - {章: 7, 周期: 高光, 台阶: 成名, 描述: 第七章的秘密, 出处: [{章: 7, 引文: 林远在第7章里行走山间}]}
    成长弧线:
      - {章: 20, 周期: 结局, 台阶: 飞升}
    全书终态: 终成一代宗师
  - 类型: 人物
    名称: 苏晴
    字段:
      简介: 同行的少女。
      身份: 师姐
      性格: 爽朗
    演变历程:
      - {章: 6, 周期: 登场, 台阶: 相遇, 出处: [{章: 6, 引文: “走吧。”苏晴说道。}]}
"""


def _freeze(engine, work_id, target):
    with engine.begin() as conn:
        section_id, outline = load_confirmed(conn, work_id, target)
        auth = take_snapshot(conn, work_id, "production")
        return freeze_context(
            conn,
            work_id=work_id,
            outline=outline,
            outline_section_id=section_id,
            run_id="run_00000000000000000001",
            attempt=1,
            as_of=target - 1,
            authorization=auth,
        )


def _with_cards(engine, work_id):
    with engine.begin() as conn:
        report = import_cards_yaml(conn, work_id, CARDS, confirm=True)
    assert report is not None
    return work_id


def test_card_hits_carry_state_as_of_and_source_pointers(engine, marked_book):
    _with_cards(engine, marked_book)
    ctx = _freeze(engine, marked_book, 9).context
    hits = {h.name: h for h in ctx.manifest.card_hits}
    assert set(hits) == {"林远", "苏晴"}
    lin = hits["林远"]
    assert [m["chapter"] for m in lin.state_as_of["milestones"]] == [1, 2, 7]
    assert {r["chapter"] for r in lin.source_refs} == {1, 2, 7}
    assert ctx.retrieval_plan.card_index_version.startswith("cards-v1:")
    states = {r.element_id: r.state for r in ctx.evidence_coverage}
    assert states["E1"] == "supported" and states["E2"] == "supported"


def test_pointers_lead_back_to_prose_outside_the_baseline(engine, marked_book):
    _with_cards(engine, marked_book)
    ctx = _freeze(engine, marked_book, 9).context
    excerpts = [p for p in ctx.prose_evidence if p.purpose != "baseline"]
    assert excerpts, "a card pointer outside the 4-chapter baseline must be re-read"
    assert all(p.chapter not in (5, 6, 7, 8) for p in excerpts)
    for p in excerpts:
        assert len(p.excerpt) <= 480
        if p.purpose != "similar_scene":  # re-read by a card pointer: it shows the card
            assert "林远" in p.excerpt or "苏晴" in p.excerpt
    assert {"similar_scene"} < {p.purpose for p in excerpts}
    kinds = {s.kind for s in ctx.manifest.sources}
    assert {"chapter", "card", "prose_excerpt"} <= kinds


def test_planning_data_and_future_never_reach_the_context(engine, marked_book):
    _with_cards(engine, marked_book)
    data = fine_outline(5)
    with engine.begin() as conn:
        confirm_section(conn, save_fine_outline(conn, marked_book, data))
    ctx = _freeze(engine, marked_book, 5).context
    text = json.dumps(ctx.wire(), ensure_ascii=False)
    for leaked in ("终成一代宗师", "飞升", "第七章的秘密", "林师兄"):
        assert leaked not in text
    hits = {h.name for h in ctx.manifest.card_hits}
    assert hits == {"林远"}  # 苏晴 debuts in chapter 6: her card does not exist as of chapter 4
    states = {r.element_id: r.state for r in ctx.evidence_coverage}
    assert states["E2"] == "card_gap"  # the prose of chapters 1–4 still names her


def test_open_conflict_on_a_card_blocks(engine, marked_book):
    _with_cards(engine, marked_book)
    changed = CARDS.replace("身份: 外门弟子", "身份: 内门弟子")
    with engine.begin() as conn:
        import_cards_yaml(conn, marked_book, changed)  # a draft contradicting a confirmed card
    frozen = _freeze(engine, marked_book, 9)
    assert [(r.element_id, r.state) for r in frozen.blocking] == [("E1", "conflict")]


def _dated_cards() -> str:
    steps = "\n".join(
        f"      - {{章: {n}, 周期: {'登场' if n == 1 else '成长'}, 台阶: 里程碑标记{n}, "
        f"出处: [{{章: {n}, 引文: 林远在第{n}章里行走山间}}]}}"
        for n in range(1, CHAPTERS + 1)
    )
    return (
        "格式: muse-cards-v1\n卡片:\n  - 类型: 人物\n    名称: 林远\n"
        "    字段: {简介: 山中少年。, 身份: 弟子, 性格: 沉静}\n    演变历程:\n" + steps + "\n"
    )


@settings(
    max_examples=12, suppress_health_check=[HealthCheck.function_scoped_fixture], deadline=None
)
@given(as_of=st.integers(min_value=1, max_value=CHAPTERS))
def test_no_marker_dated_after_as_of_appears_in_any_field(engine, marked_book, as_of):
    with engine.begin() as conn:
        if not load_cards(conn, marked_book):
            import_cards_yaml(conn, marked_book, _dated_cards(), confirm=True)
    ctx = _freeze(engine, marked_book, as_of + 1).context
    text = json.dumps(ctx.wire(), ensure_ascii=False)
    for later in range(as_of + 1, CHAPTERS + 1):
        assert f"里程碑标记{later}" not in text
        assert marker(later) not in text
    assert f"里程碑标记{as_of}" in text


def test_budget_is_never_exceeded_and_the_baseline_never_trimmed(engine, marked_book):
    from muse.context.contracts import TokenBudget
    from muse.context.tokens import estimate_tokens

    _with_cards(engine, marked_book)
    full = _freeze(engine, marked_book, 9).context
    first_card = next(s.tokens for s in full.manifest.sources if s.kind == "card")
    tiny = TokenBudget(cards=first_card, consecutive_prose=10, historical_evidence=150, patterns=0)
    with engine.begin() as conn:
        section_id, outline = load_confirmed(conn, marked_book, 9)
        ctx = freeze_context(
            conn,
            work_id=marked_book,
            outline=outline,
            outline_section_id=section_id,
            run_id="run_00000000000000000001",
            attempt=1,
            as_of=8,
            authorization=take_snapshot(conn, marked_book, "production"),
            budget=tiny,
        ).context
    used: dict[str, int] = {}
    for s in ctx.manifest.sources:
        used[s.kind] = used.get(s.kind, 0) + s.tokens
    budget = ctx.token_budget
    assert used.get("card", 0) <= budget.cards
    assert used.get("prose_excerpt", 0) <= budget.historical_evidence
    baseline = [p for p in ctx.prose_evidence if p.purpose == "baseline"]
    assert [p.chapter for p in baseline] == [5, 6, 7, 8]
    assert (
        used["chapter"]
        == sum(estimate_tokens(p.excerpt) for p in baseline)
        <= budget.consecutive_prose
    )
    reasons = " ".join(o.reason for o in ctx.omitted_sources)
    assert "超出卡片预算" in reasons and "超出历史证据预算" in reasons


def test_confirmed_style_and_bound_patterns_reach_the_context(engine, marked_book):
    from muse.patterns.bindings import Binding, bind_assembly
    from tests.patterns.test_bindings import STYLE, pattern

    before = _freeze(engine, marked_book, 9).context
    assert before.style_constraints is None and before.pattern_references == ()
    with engine.begin() as conn:
        hook = pattern(conn, "章末留悬念")
        bind_assembly(conn, marked_book, "plan_assembly", [Binding(hook, "章末")], STYLE)
    ctx = _freeze(engine, marked_book, 9).context
    assert ctx.style_constraints["personViewpoint"] == "第一人称"
    assert [p["key"] for p in ctx.pattern_references] == ["hook"]
    assert {"style", "pattern"} <= {s.kind for s in ctx.manifest.sources}
