"""Re-reading the original prose by the cards' source pointers (spec 000 §5.3).

Beyond the four-chapter baseline, each card hit leads back to bounded excerpts of the canonical
text: its latest state-change scene, a representative voice scene (characters), a representative
ability / item / relation scene, and — through the search index — a past scene of the same kind
as this chapter. Every excerpt carries its chapter, code point offsets, hash and the reason it was
chosen. Nothing is read after the freeze point: all reads go through the AsOfView.
"""

from __future__ import annotations

from dataclasses import dataclass

from muse.context.as_of import AsOfView
from muse.context.card_hits import all_refs
from muse.core.canonical import sha256_hex
from muse.knowledge import CardState, SourceRef

MAX_EXCERPT = 480  # code points; an excerpt is a scene, not a chapter
_DIALOGUE_MARKS = ("“", "「", "：")


@dataclass(frozen=True)
class Excerpt:
    chapter: int
    revision: int
    start: int
    end: int
    text: str
    purpose: str
    reason: str

    @property
    def sha256(self) -> str:
        return sha256_hex(self.text)

    @property
    def key(self) -> tuple[int, int, int]:
        return (self.chapter, self.start, self.end)


def widen(text: str, start: int, end: int, limit: int = MAX_EXCERPT) -> tuple[int, int]:
    """Grow [start, end) to paragraph bounds, never past ``limit`` code points."""
    para_start = text.rfind("\n", 0, start) + 1
    para_end = text.find("\n", end)
    para_end = len(text) if para_end < 0 else para_end
    if para_end - para_start <= limit:
        return para_start, para_end
    room = max(0, limit - (end - start)) // 2
    return max(para_start, start - room), min(para_end, end + room)


def excerpt_at(view: AsOfView, ref: SourceRef, purpose: str, reason: str) -> Excerpt | None:
    """The excerpt around a source reference, or None when its text has changed since."""
    if ref.chapter > view.as_of:
        return None
    chapter = view.chapter(ref.chapter)
    if (
        chapter.revision != ref.revision
        or sha256_hex(chapter.text[ref.start : ref.end]) != ref.sha256
    ):
        return None
    start, end = widen(chapter.text, ref.start, ref.end)
    return Excerpt(
        chapter.number, chapter.revision, start, end, chapter.text[start:end], purpose, reason
    )


def _latest_change(state: CardState) -> list[SourceRef]:
    for milestone in reversed(state.milestones):
        refs = [r for r in milestone.refs if not r.stale]
        if refs:
            return sorted(refs, key=lambda r: (r.chapter, r.start), reverse=True)
    return []


def _voice(view: AsOfView, state: CardState) -> list[SourceRef]:
    if state.type != "character":
        return []
    refs = sorted(all_refs(state), key=lambda r: (r.chapter, r.start), reverse=True)
    spoken = [r for r in refs if any(m in r.quote for m in _DIALOGUE_MARKS)]
    return spoken or refs


def _performance(state: CardState) -> list[SourceRef]:
    refs = [r for rel in state.relations for r in rel.refs if not r.stale]
    refs += [r for f in state.fields.values() for r in f.refs if not r.stale]
    return sorted(refs, key=lambda r: (r.chapter, r.start), reverse=True)


def excerpts_for_card(view: AsOfView, state: CardState, skip_chapters: set[int]) -> list[Excerpt]:
    """Up to three excerpts for one card, outside the baseline chapters, no duplicates."""
    plans = (
        ("state_change", "最近一次状态变化场景", _latest_change(state)),
        ("voice", "人物代表性语言场景", _voice(view, state)),
        ("performance", "能力、物品或关系的代表性表现", _performance(state)),
    )
    found: list[Excerpt] = []
    for purpose, label, refs in plans:
        for ref in refs:
            if ref.chapter in skip_chapters:
                continue
            excerpt = excerpt_at(view, ref, purpose, f"「{state.name}」的{label}（卡片来源指针）")
            if excerpt and excerpt.key not in {e.key for e in found}:
                found.append(excerpt)
                break
    return found
