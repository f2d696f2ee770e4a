"""Bindings: the patterns and the style a work writes with, as fixed by its confirmed assembly.

The planning domain calls :func:`bind_assembly` in the transaction that confirms an assembly
(stage 3); it releases whatever the previous confirmed assembly had bound. The context builder
reads :func:`load_bound_patterns` and :func:`load_confirmed_style`. Since rows are only written
at confirmation, a shadow assembly can never reach a writing context (spec 001 §1A, acceptance
condition 4), and every pattern a context cites can be read back to a binding row.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, bindparam, select

from muse.core.canonical import hash_value
from muse.core.clock import utc_now
from muse.core.errors import ContractViolation
from muse.core.ids import new_id
from muse.patterns.cards import PatternRecord
from muse.patterns.contracts import StyleProfile, style_wire
from muse.patterns.tables import pattern_bindings, pattern_cards, style_profiles
from muse.store.prepared import Prepared


@dataclass(frozen=True)
class Binding:
    pattern: PatternRecord
    purpose: str


def bind_assembly(
    conn: Connection,
    work_id: int,
    assembly_section_id: str,
    bindings: Sequence[Binding],
    style: StyleProfile,
) -> None:
    """Make ``bindings`` and ``style`` the work's bound set; release the previous one."""
    now = utc_now()
    for table in (pattern_bindings, style_profiles):
        conn.execute(
            table.update()
            .where(table.c.work_id == work_id, table.c.state == "bound")
            .values(state="released", released_at=now)
        )
    for position, b in enumerate(bindings):
        if b.pattern.work_id not in (None, work_id):
            raise ContractViolation(f"范式卡 {b.pattern.id} 属于其他作品，不能绑定。")
        conn.execute(
            pattern_bindings.insert().values(
                id=new_id("bind"),
                work_id=work_id,
                assembly_section_id=assembly_section_id,
                pattern_id=b.pattern.id,
                content_sha256=b.pattern.content_sha256,
                position=position,
                purpose=b.purpose,
                state="bound",
                bound_at=now,
            )
        )
    profile = style.model_dump(mode="json")
    conn.execute(
        style_profiles.insert().values(
            id=new_id("style"),
            work_id=work_id,
            assembly_section_id=assembly_section_id,
            profile=profile,
            profile_sha256=hash_value(profile),
            state="bound",
            bound_at=now,
        )
    )


_BOUND_PATTERNS = Prepared(
    select(
        pattern_bindings,
        pattern_cards.c.key,
        pattern_cards.c.name,
        pattern_cards.c.category,
        pattern_cards.c.version,
        pattern_cards.c.content,
        pattern_cards.c.content_sha256.label("card_sha256"),
    )
    .join(pattern_cards, pattern_cards.c.id == pattern_bindings.c.pattern_id)
    .where(pattern_bindings.c.work_id == bindparam("work_id"), pattern_bindings.c.state == "bound")
    .order_by(pattern_bindings.c.position)
)
_BOUND_STYLE = Prepared(
    select(style_profiles).where(
        style_profiles.c.work_id == bindparam("work_id"), style_profiles.c.state == "bound"
    )
)


def load_bound_patterns(conn: Connection, work_id: int) -> list[dict[str, Any]]:
    """Patterns bound through the work's confirmed assembly, in assembly order; [] if none.

    Each: ``id`` (card version id), ``key``, ``name``, ``category``, ``version``,
    ``contentSha256``, ``purpose``, ``content`` (the method), ``bindingId``, ``assemblySectionId``.
    """
    rows = _BOUND_PATTERNS.run(conn, work_id=work_id).all()
    out = []
    for r in rows:
        if r.card_sha256 != r.content_sha256:  # cards are immutable; a mismatch is corruption
            raise ContractViolation(
                f"绑定 {r.id} 固定的范式内容哈希与范式卡 {r.pattern_id} 不一致。"
            )
        out.append(
            {
                "id": r.pattern_id,
                "key": r.key,
                "name": r.name,
                "category": r.category,
                "version": r.version,
                "contentSha256": r.content_sha256,
                "purpose": r.purpose,
                "content": r.content,
                "bindingId": r.id,
                "assemblySectionId": r.assembly_section_id,
            }
        )
    return out


def load_confirmed_style(conn: Connection, work_id: int) -> dict[str, Any] | None:
    """The confirmed style profile as camelCase style constraints, or None if none is confirmed.

    Keys: the eight fields (``personViewpoint`` … ``samplePassage``) plus ``profileSha256`` and
    ``assemblySectionId``.
    """
    row = _BOUND_STYLE.run(conn, work_id=work_id).first()
    if row is None:
        return None
    profile = StyleProfile.model_validate(row.profile)
    return {
        **style_wire(profile),
        "profileSha256": row.profile_sha256,
        "assemblySectionId": row.assembly_section_id,
    }


def list_bindings(conn: Connection, work_id: int) -> list[dict[str, Any]]:
    """Every pattern binding of the work, bound and released, newest first, with its card."""
    rows = conn.execute(
        select(
            pattern_bindings,
            pattern_cards.c.key,
            pattern_cards.c.name,
            pattern_cards.c.category,
            pattern_cards.c.version,
        )
        .join(pattern_cards, pattern_cards.c.id == pattern_bindings.c.pattern_id)
        .where(pattern_bindings.c.work_id == work_id)
        .order_by(pattern_bindings.c.bound_at.desc(), pattern_bindings.c.position)
    ).mappings()
    return [dict(r) for r in rows]


def list_style_profiles(conn: Connection, work_id: int) -> list[dict[str, Any]]:
    """Every style profile of the work (the bound one and those released), newest first, each
    with its eight fields as (Chinese title, value) in the spec's order."""
    rows = conn.execute(
        select(style_profiles)
        .where(style_profiles.c.work_id == work_id)
        .order_by(style_profiles.c.bound_at.desc())
    ).mappings()
    out = []
    for r in rows:
        profile = StyleProfile.model_validate(r["profile"]).model_dump(mode="json")
        fields = [
            (info.title or name, profile[name]) for name, info in StyleProfile.model_fields.items()
        ]
        out.append({**dict(r), "fields": fields})
    return out
