"""Pattern cards: public (no work) or private to one work, immutable per version.

Saving a card whose content equals its latest version changes nothing; a different content is
stored as the next version, so an assembly that pinned version *n* keeps meaning what it meant.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError
from sqlalchemy import ColumnElement, Connection, Row, func, or_, select

from muse.core.canonical import hash_value
from muse.core.clock import utc_now
from muse.core.errors import InvalidInput, NotFound
from muse.core.ids import new_id
from muse.patterns.contracts import PatternContent, PatternFile
from muse.patterns.tables import pattern_cards

PUBLIC = "public"


@dataclass(frozen=True)
class PatternRecord:
    id: str
    work_id: int | None
    key: str
    version: int
    name: str
    category: str
    content: PatternContent
    content_sha256: str

    @property
    def public(self) -> bool:
        return self.work_id is None

    def brief(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "key": self.key,
            "version": self.version,
            "name": self.name,
            "category": self.category,
            "public": self.public,
            "contentSha256": self.content_sha256,
        }


def scope_of(work_id: int | None) -> str:
    return PUBLIC if work_id is None else f"work:{work_id}"


def _record(row: Row[*tuple[Any, ...]]) -> PatternRecord:
    return PatternRecord(
        id=row.id,
        work_id=row.work_id,
        key=row.key,
        version=row.version,
        name=row.name,
        category=row.category,
        content=PatternContent.model_validate(row.content),
        content_sha256=row.content_sha256,
    )


def save_pattern(
    conn: Connection, card: PatternFile, *, work_id: int | None = None
) -> tuple[PatternRecord, bool]:
    """Store ``card`` as a new version unless its content is unchanged; returns (record, created)."""
    content = PatternContent.model_validate(card.model_dump(exclude={"key"}))
    data = content.model_dump(mode="json")
    sha = hash_value(data)
    scope = scope_of(work_id)
    latest = conn.execute(
        select(pattern_cards)
        .where(pattern_cards.c.scope == scope, pattern_cards.c.key == card.key)
        .order_by(pattern_cards.c.version.desc())
        .limit(1)
    ).first()
    if latest is not None and latest.content_sha256 == sha:
        return _record(latest), False
    pattern_id = new_id("pat")
    conn.execute(
        pattern_cards.insert().values(
            id=pattern_id,
            work_id=work_id,
            scope=scope,
            key=card.key,
            version=(latest.version + 1) if latest else 1,
            name=content.name,
            category=content.category,
            content=data,
            content_sha256=sha,
            created_at=utc_now(),
        )
    )
    return get_pattern(conn, pattern_id), True


def get_pattern(conn: Connection, pattern_id: str) -> PatternRecord:
    row = conn.execute(select(pattern_cards).where(pattern_cards.c.id == pattern_id)).first()
    if row is None:
        raise NotFound(
            f"范式卡 {pattern_id} 不存在。", hint="用 muse plan patterns list 查看可用范式。"
        )
    return _record(row)


def list_patterns(
    conn: Connection, work_id: int | None = None, *, all_versions: bool = False
) -> list[PatternRecord]:
    """Public cards and (with ``work_id``) the work's own; latest versions unless ``all_versions``."""
    visible: ColumnElement[bool] = pattern_cards.c.work_id.is_(None)
    if work_id is not None:
        visible = or_(visible, pattern_cards.c.work_id == work_id)
    query = select(pattern_cards).where(visible)
    if not all_versions:
        newest = (
            select(
                pattern_cards.c.scope,
                pattern_cards.c.key,
                func.max(pattern_cards.c.version).label("v"),
            )
            .group_by(pattern_cards.c.scope, pattern_cards.c.key)
            .subquery()
        )
        query = query.join(
            newest,
            (newest.c.scope == pattern_cards.c.scope)
            & (newest.c.key == pattern_cards.c.key)
            & (newest.c.v == pattern_cards.c.version),
        )
    rows = conn.execute(
        query.order_by(pattern_cards.c.scope, pattern_cards.c.key, pattern_cards.c.version)
    ).all()
    return [_record(r) for r in rows]


def find_pattern(
    conn: Connection, work_id: int, key: str, *, public: bool = True, version: int | None = None
) -> PatternRecord:
    """A card a work may use: public, or private to ``work_id``; latest version unless pinned."""
    scope = PUBLIC if public else scope_of(work_id)
    query = select(pattern_cards).where(pattern_cards.c.scope == scope, pattern_cards.c.key == key)
    if version is not None:
        query = query.where(pattern_cards.c.version == version)
    row = conn.execute(query.order_by(pattern_cards.c.version.desc()).limit(1)).first()
    if row is None:
        where = "公共范式" if public else "本作品的私有范式"
        pinned = f"第 {version} 版" if version is not None else ""
        raise NotFound(
            f"{where}里没有键为「{key}」的范式卡{pinned}。",
            hint="用 muse plan patterns list 查看可用范式。",
        )
    return _record(row)


def parse_pattern_files(docs: Sequence[object], source: str) -> list[PatternFile]:
    """Validate pattern cards read from a file; every problem is named with its card and field."""
    problems, cards = [], []
    for index, doc in enumerate(docs):
        try:
            cards.append(PatternFile.model_validate(doc))
        except ValidationError as err:
            for e in err.errors():
                where = ".".join(str(p) for p in e["loc"]) or "（整张卡）"
                problems.append(f"第 {index + 1} 张卡字段「{where}」：{e['msg']}")
    keys = [c.key for c in cards]
    problems += [f"范式键「{k}」重复。" for k in sorted({k for k in keys if keys.count(k) > 1})]
    if problems:
        raise InvalidInput(f"{source}：范式卡不合格：\n" + "\n".join(problems))
    return cards
