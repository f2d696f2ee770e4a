"""Measuring plan text: characters of the mainline, Han characters of sketches and outlines.

Sizes follow spec 000 §8.1: Han characters are code points of Script=Han after NFC/LF. The
mainline's "≤ 50 字" counts every character but whitespace (punctuation is part of a sentence).
"""

from __future__ import annotations

from collections.abc import Iterator
from decimal import Decimal

from pydantic import BaseModel

from muse.core.length_target import SAMPLE_SIZE, ChapterLength, Density, compute_length_target
from muse.core.text import count_han, normalize_text
from muse.planning.contracts import FineOutline

_NOT_PROSE = frozenset(
    {"id", "schema_version", "action", "key", "content_sha256", "spec_sha256", "card_id"}
)


def visible_chars(text: str) -> int:
    return sum(1 for c in normalize_text(text) if not c.isspace())


def texts_of(value: object, *, skip: frozenset[str] = _NOT_PROSE) -> Iterator[str]:
    """Every prose string inside a model (ids, versions and hashes left out)."""
    if isinstance(value, BaseModel):
        for name in type(value).model_fields:
            if name not in skip:
                yield from texts_of(getattr(value, name), skip=skip)
    elif isinstance(value, (tuple, list)):
        for item in value:
            yield from texts_of(item, skip=skip)
    elif isinstance(value, str):
        yield value


def han_of(value: object) -> int:
    return sum(count_han(t) for t in texts_of(value))


def ratio(part: int, whole: int | Decimal) -> Decimal:
    return Decimal(part) / Decimal(whole) if whole else Decimal(0)


def percent(value: Decimal) -> str:
    return f"{(value * 100).quantize(Decimal('0.01'))}%"


def chapter_target(
    outline: FineOutline, chapter_lengths: list[tuple[int, int]], work_default: int
) -> int:
    """The chapter's target length exactly as the writer context computes it (spec 000 §8.1)."""
    hc = outline.hard_constraints
    density = Density(
        hard_event_count=len(hc.hard_events),
        foreshadowing_action_count=len(hc.foreshadowing),
        required_scene_count=len(hc.required_scenes),
    )
    return compute_length_target(
        _sampled_lengths(chapter_lengths, outline.target_chapter),
        outline.target_chapter,
        work_default=work_default,
        density=density,
        explicit_target_chars=outline.target_chars,
    ).target


def _sampled_lengths(chapter_lengths: list[tuple[int, int]], target: int) -> list[ChapterLength]:
    """The chapters the rule can sample: its latest ``SAMPLE_SIZE`` valid ones before ``target``
    (``core.length_target.latest_valid_chapters`` keeps no other), as ``ChapterLength`` rows.
    Building a row for each of a 2,000-chapter book's chapters was most of a plan check. Repeated
    numbers (never from the database) get every row, so the rule refuses them as before."""
    if len({n for n, _ in chapter_lengths}) != len(chapter_lengths):
        return [ChapterLength(number=n, han_count=h, empty=h == 0) for n, h in chapter_lengths]
    picked: list[ChapterLength] = []
    for n, h in sorted(chapter_lengths, reverse=True):
        row = ChapterLength(number=n, han_count=h, empty=h == 0)
        if row.is_valid_before(target):
            picked.append(row)
            if len(picked) == SAMPLE_SIZE:
                break
    return picked
