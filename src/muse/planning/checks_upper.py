"""Mechanical checks of stages 0–2: 定盘, 大纲/卷纲, 设定拆条 (spec 001 §1A).

Each check is a small function ``(view, model, section) -> findings``; a check that needs a
confirmed upper stage is skipped while that stage is not confirmed (the stage-order gate reports
the missing stage itself). Codes are stable: tests and the dashboard refer to them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from decimal import Decimal

from muse.core.length_target import LENGTH_MAX, LENGTH_MIN
from muse.core.text import count_han
from muse.planning import existing_book
from muse.planning.findings import Finding, Where, error, warning
from muse.planning.plan_view import PlanView
from muse.planning.sections import Section
from muse.planning.stage_contracts import SettingSignoff, WorkFoundation, WorkOutline
from muse.planning.text_measures import percent, ratio, texts_of, visible_chars

MAINLINE_MAX_CHARS = 50
SKETCH_RATIO = (Decimal("0.003"), Decimal("0.005"))  # 卷粗纲 ≈ 卷正文 0.3–0.5%

# -- stage 0 ----------------------------------------------------------------------------------


def foundation_lengths(view: PlanView, f: WorkFoundation, _s: Section | None) -> Iterator[Finding]:
    lt = f.length_target
    if lt.volume_count > lt.target_chapters:
        yield error(
            "volumes_exceed_chapters",
            f"分卷数 {lt.volume_count} 大于目标章数 {lt.target_chapters}",
            field="length_target.volume_count",
        )
    r = lt.chars_per_chapter
    if r.min < LENGTH_MIN or r.max > LENGTH_MAX:
        yield warning(
            "chars_range_clamped",
            f"单章字数区间 {r.min}–{r.max} 超出 {LENGTH_MIN}–{LENGTH_MAX}，生成时会被限幅",
            field="length_target.chars_per_chapter",
        )
    if not r.min <= view.work_default_chars <= r.max:
        yield warning(
            "work_default_outside_range",
            f"作品默认单章字数 {view.work_default_chars} 不在定盘区间 {r.min}–{r.max} 内；"
            "无足够已写章节时，写作篇幅按作品默认值计算",
            field="length_target.chars_per_chapter",
        )


# -- stage 1 ----------------------------------------------------------------------------------


def mainline_length(view: PlanView, o: WorkOutline, _s: Section | None) -> Iterator[Finding]:
    size = visible_chars(o.mainline)
    if size > MAINLINE_MAX_CHARS:
        yield error(
            "mainline_too_long",
            f"主线一句话有 {size} 字，超过 {MAINLINE_MAX_CHARS} 字",
            field="mainline",
        )


def volume_structure(view: PlanView, o: WorkOutline, _s: Section | None) -> Iterator[Finding]:
    numbers = [v.number for v in o.volumes]
    if numbers != list(range(1, len(numbers) + 1)):
        yield error("volume_numbering", f"卷序应从 1 连续编号，现为 {numbers}", field="volumes")
    expected_first = 1
    for i, v in enumerate(o.volumes):
        if v.first_chapter != expected_first:
            yield error(
                "volume_ranges",
                f"第 {v.number} 卷应从第 {expected_first} 章开始（各卷章节须首尾相接），"
                f"现为第 {v.first_chapter} 章",
                field=f"volumes.{i}.first_chapter",
            )
        expected_first = v.last_chapter + 1
    numbers_set = set(numbers)
    if o.current_volume.volume not in numbers_set:
        yield error(
            "current_volume_unknown",
            f"当前卷第 {o.current_volume.volume} 卷不在分卷粗纲里",
            field="current_volume.volume",
        )
        return
    current = o.volumes[numbers.index(o.current_volume.volume)]
    for i, b in enumerate(o.current_volume.beats):
        if not current.first_chapter <= b.first_chapter <= b.last_chapter <= current.last_chapter:
            yield error(
                "current_beats_outside",
                f"当前卷细纲的第 {b.first_chapter}–{b.last_chapter} 章不在第 {current.number} 卷"
                f"（第 {current.first_chapter}–{current.last_chapter} 章）之内",
                field=f"current_volume.beats.{i}",
            )


def volumes_match_length(view: PlanView, o: WorkOutline, _s: Section | None) -> Iterator[Finding]:
    f = view.foundation
    if f is None:
        return
    lt = f.length_target
    if len(o.volumes) != lt.volume_count:
        yield error(
            "volume_count_mismatch",
            f"大纲有 {len(o.volumes)} 卷，与已确认定盘的分卷数 {lt.volume_count} 不一致",
            field="volumes",
        )
    if o.volumes[-1].last_chapter != lt.target_chapters:
        yield error(
            "chapter_count_mismatch",
            f"分卷粗纲止于第 {o.volumes[-1].last_chapter} 章，已确认定盘的目标章数是 "
            f"{lt.target_chapters}",
            field=f"volumes.{len(o.volumes) - 1}.last_chapter",
        )


def sketch_size(view: PlanView, o: WorkOutline, _s: Section | None) -> Iterator[Finding]:
    """卷粗纲 ≈ 卷正文 0.3–0.5%. Too long blocks; too short blocks the current volume only
    (a future volume's sketch is meant to be rough)."""
    f = view.foundation
    if f is None:
        return
    per_chapter = (
        Decimal(f.length_target.chars_per_chapter.min + f.length_target.chars_per_chapter.max) / 2
    )
    low, high = SKETCH_RATIO
    for i, v in enumerate(o.volumes):
        volume_chars = per_chapter * (v.last_chapter - v.first_chapter + 1)
        share = ratio(count_han(v.sketch), volume_chars)
        where: Where = {"field": f"volumes.{i}.sketch"}
        told = (
            f"第 {v.number} 卷粗纲 {count_han(v.sketch)} 个汉字，约为卷正文（约 {int(volume_chars)} 字）"
            f"的 {percent(share)}，应在 {percent(low)}–{percent(high)}"
        )
        if share > high:
            yield error("sketch_too_long", told + "：粗纲是骨架，不是缩写", **where)
        elif share < low and v.number == o.current_volume.volume:
            yield error("sketch_too_short", told + "：当前卷粗纲过薄", **where)
        elif share < low:
            yield warning("sketch_thin", told + "（未来卷可以粗略，但不要空泛）", **where)


def thread_plans(view: PlanView, o: WorkOutline, _s: Section | None) -> Iterator[Finding]:
    names = [t.thread for t in o.foreshadowing_threads]
    for name in sorted({n for n in names if names.count(n) > 1}):
        yield error("thread_duplicate", f"伏笔线「{name}」重复", field="foreshadowing_threads")
    limit = view.foundation.length_target.target_chapters if view.foundation else None
    for i, t in enumerate(o.foreshadowing_threads):
        chapters = [t.plant_chapter, *t.advance_chapters, t.payoff_chapter]
        if chapters != sorted(chapters) or t.plant_chapter == t.payoff_chapter:
            yield error(
                "thread_order",
                f"伏笔「{t.thread}」须先埋、再推、后收（埋 < 推 ≤ … < 收），现为 {chapters}",
                field=f"foreshadowing_threads.{i}",
            )
        if limit is not None and max(chapters) > limit:
            yield error(
                "thread_out_of_range",
                f"伏笔「{t.thread}」计划到第 {max(chapters)} 章，超出目标章数 {limit}",
                field=f"foreshadowing_threads.{i}",
            )


def rejected_in_outline(view: PlanView, o: WorkOutline, _s: Section | None) -> Iterator[Finding]:
    texts = [
        o.mainline,
        *(t for v in o.volumes for t in texts_of(v)),
        *(b.text for b in o.current_volume.beats),
    ]
    for rejected in o.rejected_directions:
        for keyword in rejected.keywords:
            if any(keyword in t for t in texts):
                yield error(
                    "rejected_revived",
                    f"大纲写入了弃案「{rejected.direction}」的关键词「{keyword}」"
                    f"（弃用原因：{rejected.reason}）",
                    field="rejected_directions",
                )


def rejected_kept(view: PlanView, o: WorkOutline, s: Section | None) -> Iterator[Finding]:
    before = view.confirmed.get(1)
    if before is None or (s is not None and before.section.id == s.id):
        return
    kept = {r.direction for r in o.rejected_directions}
    previous: WorkOutline = before.model  # type: ignore[assignment]
    for r in previous.rejected_directions:
        if r.direction not in kept:
            yield warning(
                "rejected_dropped",
                f"新大纲删去了已确认的弃案「{r.direction}」；删去后细纲复活它将不再被识别",
                field="rejected_directions",
            )


# -- stage 2 ----------------------------------------------------------------------------------


def signoff_cards(view: PlanView, so: SettingSignoff, _s: Section | None) -> Iterator[Finding]:
    current = view.setting.by_id()
    limit = view.foundation.length_target.target_chapters if view.foundation else None
    for i, pin in enumerate(so.cards):
        card = current.get(pin.card_id)
        where: Where = {"field": f"cards.{i}"}
        if card is None or card.spec_sha256 != pin.spec_sha256:
            # A signed-off ledger whose cards evolved while writing is expected: reported only.
            signed = _s is not None and _s.state == "confirmed"
            yield (warning if signed else error)(
                "card_changed",
                f"卡片「{pin.name}」已不是台账生成时的已确认版本，请重新生成台账",
                **where,
            )
            continue
        for problem in card.arc_problems:
            yield error(
                "arc_open", f"{card.type_label}「{card.name}」弧线未闭环：{problem}", **where
            )
        if limit is not None and card.planned_chapters and card.planned_chapters[-1] > limit:
            yield error(
                "arc_out_of_range",
                f"{card.type_label}「{card.name}」的弧线排到第 "
                f"{card.planned_chapters[-1]} 章，超出目标章数 {limit}",
                **where,
            )
    pinned = {p.card_id for p in so.cards}
    extra = [c.name for c in view.setting.cards if c.id not in pinned]
    if extra:
        yield warning(
            "cards_unpinned", f"台账之外还有已确认卡片：{'、'.join(extra)}；重新生成台账可纳入"
        )
    if view.setting.pending_drafts:
        yield warning(
            "drafts_pending", f"还有 {view.setting.pending_drafts} 份卡片草稿等待作者处理"
        )


def thread_cards_exist(view: PlanView, so: SettingSignoff, _s: Section | None) -> Iterator[Finding]:
    outline = view.outline
    if outline is None:
        return
    for t in outline.foreshadowing_threads:
        for name in t.cards:
            if view.setting.find(name) is None:
                yield warning(
                    "thread_card_unknown", f"大纲伏笔「{t.thread}」涉及的「{name}」没有已确认卡片"
                )


CHECKS: dict[int, tuple[Callable[..., Iterable[Finding]], ...]] = {
    0: (foundation_lengths, existing_book.foundation_fits_book),
    1: (
        existing_book.outline_fits_book,
        mainline_length,
        volume_structure,
        volumes_match_length,
        sketch_size,
        thread_plans,
        rejected_in_outline,
        rejected_kept,
    ),
    2: (signoff_cards, thread_cards_exist),
}
