"""Migration 0018: search chunks keep offsets into the prose; the downgrade restores their text."""

from __future__ import annotations

from alembic import command
from sqlalchemy import text

from muse.context.search.index import rebuild_index, search_text
from muse.store.migrate import alembic_config, current_revisions, upgrade
from muse.works.importer import import_book

BOOK = "\n".join(
    f"第{n}章 第{n}回\n林远在青石镇第{n}次见到苏晴，两人说起玉佩的来历。\n" for n in range(1, 6)
).encode()


def _chunk_texts(conn) -> list[tuple[str, str]]:
    rows = conn.execute(
        text(
            "SELECT s.text, p.text, s.start_offset, s.end_offset FROM search_chunks s"
            " JOIN chapters c ON c.work_id = s.work_id AND c.number = s.chapter"
            " JOIN prose_blocks p ON p.chapter_id = c.id AND p.revision = s.revision"
        )
    ).all()
    return [(stored, prose[start:end]) for stored, prose, start, end in rows]


def test_downgrade_restores_chunk_text_and_upgrade_drops_it(engine):
    work_id = import_book(engine, BOOK, title="迁移").work_id
    with engine.begin() as conn:
        rebuild_index(conn, work_id)
    command.downgrade(alembic_config(engine), "0018-1")
    assert "0018" not in current_revisions(engine)
    with engine.connect() as conn:
        pairs = _chunk_texts(conn)
    assert pairs and all(stored == cut for stored, cut in pairs)
    upgrade(engine)
    with engine.connect() as conn:
        columns = {
            r[0]
            for r in conn.execute(text("SELECT * FROM search_chunks LIMIT 0")).cursor.description
        }
        assert "text" not in columns and {"start_offset", "end_offset", "tokens"} <= columns
        hits = search_text(conn, work_id, "玉佩", max_chapter=5, limit=3)
    assert hits and all("玉佩" in h.text for h in hits)
