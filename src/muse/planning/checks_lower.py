"""Mechanical checks of stages 3–4: 范式与文风 and 细纲 (spec 001 §1A; spec 000 §4).

A fine outline is a skeleton, not a summary: 3–5 % of its chapter's target length in Han
characters (longer is sent back, shorter is reported). Its hard constraints must name every kind
(hard events, result direction, foreshadowing actions, chapter-end hook, required entities); a
chapter with no foreshadowing action says why in ``foreshadowing_note``. Against the confirmed
upper stages it must stay inside the planned chapters and the current volume, keep to the length
target, not revive a rejected direction, and keep the foreshadowing plan (``foreshadowing.py``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from decimal import Decimal

from muse.core.errors import NotFound
from muse.core.text import count_han
from muse.patterns import find_pattern
from muse.planning.contracts import FineOutline
from muse.planning.findings import Finding, Where, error, warning
from muse.planning.foreshadowing import check_threads
from muse.planning.plan_view import PlanView
from muse.planning.sections import Section
from muse.planning.stage_contracts import Assembly
from muse.planning.text_measures import chapter_target, han_of, percent, ratio, texts_of

OUTLINE_RATIO = (Decimal("0.03"), Decimal("0.05"))  # 章细纲 ≈ 章正文 3–5%
SAMPLE_MIN_HAN = 200

# -- stage 3 ----------------------------------------------------------------------------------


def assembly_patterns(view: PlanView, a: Assembly, _s: Section | None) -> Iterator[Finding]:
    if not a.patterns:
        yield error("patterns_empty", "范式装配为空：至少选定并绑定一张范式卡", field="patterns")
    keys = [(p.public, p.key) for p in a.patterns]
    for i, choice in enumerate(a.patterns):
        where: Where = {"field": f"patterns.{i}"}
        if keys.count((choice.public, choice.key)) > 1:
            yield warning("pattern_repeated", f"范式「{choice.key}」装配了不止一次", **where)
        try:
            card = find_pattern(
                view.conn, view.work_id, choice.key, public=choice.public, version=choice.version
            )
        except NotFound as err:
            yield error("pattern_missing", err.message, **where)
            continue
        if choice.content_sha256 and choice.content_sha256 != card.content_sha256:
            yield error(
                "pattern_hash_mismatch",
                f"范式「{choice.key}」第 {card.version} 版的内容哈希与装配里固定的不一致",
                **where,
            )


def style_sample(view: PlanView, a: Assembly, _s: Section | None) -> Iterator[Finding]:
    size = count_han(a.style.sample_passage)
    if size < SAMPLE_MIN_HAN:
        yield warning(
            "sample_short",
            f"达标样张只有 {size} 个汉字，建议不少于 {SAMPLE_MIN_HAN} 字",
            field="style.sample_passage",
        )


# -- stage 4 (intrinsic: every mode) ------------------------------------------------------------


def hard_kinds(view: PlanView, o: FineOutline, _s: Section | None) -> Iterator[Finding]:
    hc = o.hard_constraints
    if not hc.foreshadowing and not hc.foreshadowing_note.strip():
        yield error(
            "foreshadowing_missing",
            "硬约束缺少伏笔动作（埋/推/收）；本章确无伏笔动作时，在 foreshadowing_note 写明原因",
            field="hard_constraints.foreshadowing",
        )


def outline_size(view: PlanView, o: FineOutline, _s: Section | None) -> Iterator[Finding]:
    target = chapter_target(
        o,
        view.lengths_before(o.target_chapter),
        view.work_default_chars,
    )
    size = han_of(o)
    share = ratio(size, target)
    low, high = OUTLINE_RATIO
    told = (
        f"细纲 {size} 个汉字，为本章目标篇幅 {target} 字的 {percent(share)}，"
        f"应在 {percent(low)}–{percent(high)}"
    )
    if share > high:
        yield error("outline_too_long", told + "：细纲是结构骨架，不是缩写")
    elif share < low:
        yield warning("outline_thin", told + "：偏薄，写手可能缺少依据")


# -- stage 4 against the confirmed upper stages --------------------------------------------------


def chapter_in_plan(view: PlanView, o: FineOutline, _s: Section | None) -> Iterator[Finding]:
    n = o.target_chapter
    if view.foundation is not None:
        lt = view.foundation.length_target
        if n > lt.target_chapters:
            yield error(
                "chapter_out_of_range",
                f"第 {n} 章超出定盘的目标章数 {lt.target_chapters}",
                field="target_chapter",
            )
        r = lt.chars_per_chapter
        if o.target_chars is not None and not r.min <= o.target_chars <= r.max:
            yield error(
                "target_chars_out_of_range",
                f"目标字数 {o.target_chars} 不在定盘的单章字数区间 {r.min}–{r.max} 内",
                field="target_chars",
            )
    outline = view.outline
    if outline is None:
        return
    volume = outline.volume_of(n)
    if volume is not None and volume.number != outline.current_volume.volume:
        yield error(
            "chapter_outside_current_volume",
            f"第 {n} 章属于第 {volume.number} 卷，已确认大纲的当前卷是第 "
            f"{outline.current_volume.volume} 卷：先在大纲里把当前卷推进到这一卷",
            field="target_chapter",
        )


def rejected_revived(view: PlanView, o: FineOutline, _s: Section | None) -> Iterator[Finding]:
    outline = view.outline
    if outline is None:
        return
    texts = list(texts_of(o))
    for rejected in outline.rejected_directions:
        hits = [k for k in rejected.keywords if any(k in t for t in texts)]
        if hits:
            yield error(
                "rejected_revived",
                f"细纲复活了已弃用的方向「{rejected.direction}」（关键词："
                f"{'、'.join(hits)}；弃用原因：{rejected.reason}）",
            )


def threads(view: PlanView, o: FineOutline, _s: Section | None) -> Iterator[Finding]:
    yield from check_threads(view.outline, view.outlines_before(o.target_chapter), o)


def cards_known(view: PlanView, o: FineOutline, _s: Section | None) -> Iterator[Finding]:
    if not view.planning:
        return
    hc = o.hard_constraints
    for i, a in enumerate(hc.foreshadowing):
        for name in a.cards:
            if view.setting.find(name) is None:
                yield error(
                    "foreshadowing_card_unknown",
                    f"伏笔「{a.thread}」涉及的「{name}」没有已确认卡片",
                    field=f"hard_constraints.foreshadowing.{i}.cards",
                )
    for i, e in enumerate(hc.required_entities):
        if view.setting.find(e.name) is None:
            yield warning(
                "entity_unknown",
                f"必须出场实体「{e.name}」没有已确认卡片",
                field=f"hard_constraints.required_entities.{i}",
            )


CHECKS: dict[int, tuple[Callable[..., Iterable[Finding]], ...]] = {
    3: (assembly_patterns, style_sample),
    4: (hard_kinds, outline_size, chapter_in_plan, rejected_revived, threads, cards_known),
}
