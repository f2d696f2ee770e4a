"""Reading works and chapters: the catalogue every other domain reads canonical text through.

Functions take a SQLAlchemy ``Connection`` so that callers compose them inside their own
transaction. Readers here return canonical text only (the chapter's current revision); the as-of
rule (nothing after the freeze point) is applied by callers passing ``upto``.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from sqlalchemy import (
    ColumnElement,
    Connection,
    CursorResult,
    LargeBinary,
    Row,
    Select,
    bindparam,
    cast,
    func,
    literal_column,
    select,
    tuple_,
)

from muse.core.clock import utc_now
from muse.core.errors import InvalidInput, NotFound
from muse.store.digest import PairsDigest
from muse.store.prepared import Prepared
from muse.works.contracts import (
    ChapterInfo,
    ChapterText,
    Purpose,
    SourceKind,
    SourceStatus,
    WorkInfo,
)
from muse.works.rows import WorkRow
from muse.works.tables import chapters, prose_blocks, volumes, works

DEFAULT_PURPOSES = {
    SourceKind.own: (Purpose.production, Purpose.evaluation),
    SourceKind.public_domain: (Purpose.production, Purpose.evaluation),
    SourceKind.licensed: (Purpose.evaluation,),
}


def _new_id(result: CursorResult[Any]) -> int:
    """The primary key of the row an INSERT just wrote."""
    key = result.inserted_primary_key
    assert key is not None
    return int(key[0])


def create_work(
    conn: Connection,
    title: str,
    *,
    source_kind: SourceKind = SourceKind.own,
    allowed_purposes: Sequence[Purpose] | None = None,
    source_version: str = "manuscript",
    source_note: str | None = None,
    default_chapter_chars: int = 3000,
    front_matter: str | None = None,
) -> int:
    """Create a work and return its id. A licensed reference book defaults to evaluation only."""
    title = title.strip()
    if not title:
        raise InvalidInput("书名不能为空。", hint="用 --title 指定书名。")
    purposes = tuple(allowed_purposes or DEFAULT_PURPOSES[SourceKind(source_kind)])
    now = utc_now()
    result = conn.execute(
        works.insert().values(
            title=title,
            source_kind=SourceKind(source_kind).value,
            allowed_purposes=[Purpose(p).value for p in purposes],
            source_status=SourceStatus.active.value,
            source_version=source_version,
            source_note=source_note,
            default_chapter_chars=default_chapter_chars,
            front_matter=front_matter or None,
            created_at=now,
            updated_at=now,
        )
    )
    return _new_id(result)


def find_imported_work(conn: Connection, title: str, source_version: str) -> int | None:
    """The first work with this title imported from this file version, if any."""
    found = conn.execute(
        select(works.c.id)
        .where(works.c.title == title, works.c.source_version == source_version)
        .order_by(works.c.id)
        .limit(1)
    ).first()
    return None if found is None else int(found[0])


MAX_ID = 2**63 - 1  # the widest id either backend stores (BIGINT)


_WORK_ROW = Prepared(select(works).where(works.c.id == bindparam("work_id")))


def get_work_row(conn: Connection, work_id: int) -> WorkRow:
    row = None
    if 0 < work_id <= MAX_ID:  # a wider number is no id (SQLite would refuse to bind it)
        row = _WORK_ROW.run(conn, work_id=work_id).mappings().first()
    if row is None:
        raise NotFound(f"作品 {work_id} 不存在。", hint="用 muse works 查看已有作品。")
    return WorkRow.from_row(row)


def work_info(conn: Connection, work_id: int) -> WorkInfo:
    row = get_work_row(conn, work_id)
    stats = conn.execute(
        select(
            func.count(),
            func.coalesce(func.sum(prose_blocks.c.han_count), 0),
            func.max(chapters.c.number),
        )
        .select_from(chapters.join(prose_blocks, _current_block()))
        .where(chapters.c.work_id == work_id)
    ).one()
    return WorkInfo(
        id=row.id,
        title=row.title,
        source_kind=SourceKind(row.source_kind),
        allowed_purposes=tuple(Purpose(p) for p in row.allowed_purposes),
        source_status=SourceStatus(row.source_status),
        source_version=row.source_version,
        chapter_count=stats[0],
        han_count=int(stats[1]),
        latest_chapter=stats[2],
    )


def list_works(conn: Connection) -> list[WorkInfo]:
    ids = conn.execute(select(works.c.id).order_by(works.c.id)).scalars().all()
    return [work_info(conn, work_id) for work_id in ids]


def work_ids(conn: Connection) -> list[int]:
    """The id of every work, in order."""
    return list(conn.execute(select(works.c.id).order_by(works.c.id)).scalars())


def resolve_work(conn: Connection, work: int | str | None) -> int:
    """Find a work by id or exact title; with ``None``, the only work there is."""
    if work is None:
        ids = conn.execute(select(works.c.id).order_by(works.c.id)).scalars().all()
        if len(ids) == 1:
            return int(ids[0])
        if not ids:
            raise NotFound("还没有作品。", hint="用 muse import 导入一本书，或运行 make demo。")
        raise InvalidInput(f"有 {len(ids)} 部作品，请用 --work 指定作品 ID 或书名。")
    if isinstance(work, int) or str(work).isdecimal():  # not isdigit(): "²" is no number
        return get_work_row(conn, int(work)).id
    found = conn.execute(select(works.c.id).where(works.c.title == str(work))).scalars().all()
    if len(found) != 1:
        raise NotFound(
            f"没有书名为「{work}」的作品。"
            if not found
            else f"有多部作品叫「{work}」，请用作品 ID。"
        )
    return int(found[0])


def _current_block() -> ColumnElement[bool]:
    return (prose_blocks.c.chapter_id == chapters.c.id) & (
        prose_blocks.c.revision == chapters.c.current_revision
    )


def _current_block_counts() -> ColumnElement[bool]:
    """:func:`_current_block` for a query that reads only ``han_count`` / ``content_sha256`` of
    the block: the same rows, answered from the covering index (migration 0026). ``revision + 0``
    keeps SQLite from the unique (chapter_id, revision) index, whose one-row lookup it prefers
    and which sends it to the table row, through the text's overflow pages, for the two columns
    after the text (2,000 chapters: ~5 ms → ~1 ms)."""
    return (prose_blocks.c.chapter_id == chapters.c.id) & (
        prose_blocks.c.revision + literal_column("0") == chapters.c.current_revision
    )


def list_chapters(
    conn: Connection, work_id: int, *, upto: int | None = None, last: int | None = None
) -> list[ChapterInfo]:
    """Chapters of a work in number order, with their canonical revision's counts and hash;
    with ``last``, only the latest ``last`` of them (still in number order)."""
    get_work_row(conn, work_id)
    query = (
        select(
            chapters.c.number,
            chapters.c.title,
            volumes.c.title.label("volume"),
            prose_blocks.c.han_count,
            chapters.c.current_revision,
            prose_blocks.c.content_sha256,
        )
        .select_from(
            chapters.join(prose_blocks, _current_block()).outerjoin(
                volumes, volumes.c.id == chapters.c.volume_id
            )
        )
        .where(chapters.c.work_id == work_id)
        .order_by(chapters.c.number)
    )
    if upto is not None:
        query = query.where(chapters.c.number <= upto)
    if last is not None:
        query = query.order_by(None).order_by(chapters.c.number.desc()).limit(last)
    found = [
        ChapterInfo(
            number=r.number,
            title=r.title,
            volume=r.volume,
            han_count=r.han_count,
            revision=r.current_revision,
            content_sha256=r.content_sha256,
        )
        for r in conn.execute(query)
    ]
    return found if last is None else found[::-1]


def _text_query(work_id: int | ColumnElement[int]) -> Select[*tuple[Any, ...]]:
    return (
        select(
            chapters.c.number,
            chapters.c.title,
            chapters.c.current_revision,
            prose_blocks.c.text,
            prose_blocks.c.content_sha256,
            prose_blocks.c.han_count,
        )
        .select_from(chapters.join(prose_blocks, _current_block()))
        .where(chapters.c.work_id == work_id)
    )


def _to_text(work_id: int, row: Row[*tuple[Any, ...]]) -> ChapterText:
    return ChapterText(
        work_id=work_id,
        number=row.number,
        title=row.title,
        revision=row.current_revision,
        text=row.text,
        content_sha256=row.content_sha256,
        han_count=row.han_count,
    )


_CHAPTER_TEXT = Prepared(
    _text_query(bindparam("work_id")).where(chapters.c.number == bindparam("number"))
)


def get_chapter_text(conn: Connection, work_id: int, number: int) -> ChapterText:
    """The canonical text of one chapter (its current revision)."""
    row = _CHAPTER_TEXT.run(conn, work_id=work_id, number=number).first()
    if row is None:
        raise NotFound(
            f"作品 {work_id} 没有第 {number} 章。", hint="用 muse chapters 查看章节列表。"
        )
    return _to_text(work_id, row)


def iter_chapter_texts(
    conn: Connection, work_id: int, *, numbers: Sequence[int] | None = None, upto: int | None = None
) -> Iterator[ChapterText]:
    """Canonical texts in chapter order, optionally only ``numbers`` and only ``<= upto``."""
    params: dict[str, Any] = {"work_id": work_id}
    if numbers is not None:
        params["numbers"] = list(numbers)
    if upto is not None:
        params["upto"] = upto
    for row in _TEXTS[(numbers is not None, upto is not None)].run(conn, **params):
        yield _to_text(work_id, row)


def _texts(by_numbers: bool, by_upto: bool) -> Prepared:
    query = _text_query(bindparam("work_id")).order_by(chapters.c.number)
    if by_numbers:
        query = query.where(chapters.c.number.in_(bindparam("numbers", expanding=True)))
    if by_upto:
        query = query.where(chapters.c.number <= bindparam("upto"))
    return Prepared(query)


# by (numbers given, upto given)
_TEXTS = {(n, u): _texts(n, u) for n in (False, True) for u in (False, True)}


def get_revision_text(conn: Connection, work_id: int, number: int, revision: int) -> ChapterText:
    """Any stored revision of a chapter, canonical or earlier."""
    row = conn.execute(
        select(
            chapters.c.number,
            chapters.c.title,
            prose_blocks.c.revision.label("current_revision"),
            prose_blocks.c.text,
            prose_blocks.c.content_sha256,
            prose_blocks.c.han_count,
        )
        .select_from(chapters.join(prose_blocks, prose_blocks.c.chapter_id == chapters.c.id))
        .where(
            chapters.c.work_id == work_id,
            chapters.c.number == number,
            prose_blocks.c.revision == revision,
        )
    ).first()
    if row is None:
        raise NotFound(f"第 {number} 章没有修订版 {revision}。")
    return _to_text(work_id, row)


_SLICED_BLOCKS = Prepared(
    select(chapters.c.number, prose_blocks.c.revision, prose_blocks.c.text)
    .select_from(chapters.join(prose_blocks, prose_blocks.c.chapter_id == chapters.c.id))
    .where(
        chapters.c.work_id == bindparam("work_id"),
        chapters.c.number.in_(bindparam("numbers", expanding=True)),
        tuple_(chapters.c.number, prose_blocks.c.revision).in_(bindparam("pairs", expanding=True)),
    )
)


def prose_slices(
    conn: Connection, work_id: int, spans: Sequence[tuple[int, int, int, int]]
) -> list[str | None]:
    """The text of each ``(chapter, revision, start, end)`` span of stored prose, code point
    offsets, half-open; ``None`` where that revision is not stored (one query).

    ``number IN (…)`` repeats what the pairs already say: without it SQLite walks every chapter
    of the work (2,000 of them: ~1 ms per search) to test each against the pair list; with it,
    it looks up the few chapters named."""
    pairs = sorted({(number, revision) for number, revision, _, _ in spans})
    if not pairs:
        return []
    rows = _SLICED_BLOCKS.run(
        conn, work_id=work_id, numbers=sorted({number for number, _ in pairs}), pairs=pairs
    )
    texts = {(r.number, r.revision): r.text for r in rows}
    return [
        None if (found := texts.get((n, rev))) is None else found[start:end]
        for n, rev, start, end in spans
    ]


_LATEST_NUMBER = Prepared(
    select(func.max(chapters.c.number)).where(chapters.c.work_id == bindparam("work_id"))
)


def latest_chapter_number(conn: Connection, work_id: int) -> int | None:
    latest: int | None = _LATEST_NUMBER.run(conn, work_id=work_id).scalar()
    return latest


def chapter_revisions(conn: Connection, work_id: int) -> dict[int, int]:
    """chapter number → canonical revision, for every chapter (one light query)."""
    rows = conn.execute(
        select(chapters.c.number, chapters.c.current_revision).where(chapters.c.work_id == work_id)
    )
    return {number: revision for number, revision in rows}


def chapter_revisions_digest(conn: Connection, work_id: int) -> str:
    """Every chapter's ``number:revision`` in one string (``store.digest``): equal to another
    digest of the same pairs only when the pairs are equal."""
    return _REVISIONS_DIGEST(conn, work_id=work_id)


_REVISIONS_DIGEST = PairsDigest(
    chapters.c.number, chapters.c.current_revision, chapters.c.work_id == bindparam("work_id")
)


def chapter_lengths(conn: Connection, work_id: int) -> list[tuple[int, int]]:
    """(number, Han count) of every chapter in number order: what :func:`list_chapters` gives,
    without the titles, volumes, hashes and row models the plan view never reads."""
    query = (
        select(chapters.c.number, prose_blocks.c.han_count)
        .select_from(chapters.join(prose_blocks, _current_block_counts()))
        .where(chapters.c.work_id == work_id)
        .order_by(chapters.c.number)
    )
    return [(number, han) for number, han in conn.execute(query)]


def chapter_hashes(conn: Connection, work_id: int) -> list[tuple[int, str]]:
    """(number, content hash) of every chapter's canonical revision in number order: what
    :func:`list_chapters` gives, without the row models (a check reads them on every write)."""
    query = (
        select(chapters.c.number, prose_blocks.c.content_sha256)
        .select_from(chapters.join(prose_blocks, _current_block_counts()))
        .where(chapters.c.work_id == work_id)
        .order_by(chapters.c.number)
    )
    return [(number, sha) for number, sha in conn.execute(query)]


def chapter_bytes_after(
    conn: Connection, work_id: int, after: int = 0
) -> list[tuple[int, str, bytes]]:
    """(number, content hash, canonical text as UTF-8 bytes) of the chapters numbered above
    ``after``, in number order. The database encodes the text: nothing is decoded to ``str`` on
    the way (a 5 M-character book is 15 MB of UTF-8; decoding it cost ~8 ms per process)."""
    encoded = (
        func.convert_to(prose_blocks.c.text, literal_column("'UTF8'"))
        if conn.dialect.name == "postgresql"
        else cast(prose_blocks.c.text, LargeBinary)
    )
    query = (
        select(chapters.c.number, prose_blocks.c.content_sha256, encoded)
        .select_from(chapters.join(prose_blocks, _current_block()))
        .where(chapters.c.work_id == work_id, chapters.c.number > after)
        .order_by(chapters.c.number)
    )
    return [(number, sha, bytes(text)) for number, sha, text in conn.execute(query)]


_CURRENT_REVISION = Prepared(
    select(chapters.c.current_revision).where(
        chapters.c.work_id == bindparam("work_id"), chapters.c.number == bindparam("number")
    )
)


def current_revision(conn: Connection, work_id: int, number: int) -> int | None:
    """The chapter's canonical revision, None if the chapter does not exist."""
    revision: int | None = _CURRENT_REVISION.run(conn, work_id=work_id, number=number).scalar()
    return revision


def prose_attributions(conn: Connection) -> Sequence[Row[Any, Any]]:
    """(id, attribution) of every stored prose revision of every work."""
    return conn.execute(select(prose_blocks.c.id, prose_blocks.c.attribution)).all()


def recent_chapter_lengths(
    conn: Connection, work_id: int, *, upto: int, min_han: int = 0, limit: int | None = None
) -> list[tuple[int, int]]:
    """(number, Han count) of the latest chapters ``<= upto`` with at least ``min_han`` Han
    characters, newest first — what the length rule and the baseline need, without reading
    the whole book."""
    params = {"work_id": work_id, "upto": upto, "min_han": min_han}
    if limit is None:
        rows = _RECENT_LENGTHS.run(conn, **params)
    else:
        rows = _RECENT_LENGTHS_LIMITED.run(conn, **params, limit=limit)
    return [(number, han) for number, han in rows]


_RECENT_QUERY = (
    select(chapters.c.number, prose_blocks.c.han_count)
    .select_from(chapters.join(prose_blocks, _current_block_counts()))
    .where(
        chapters.c.work_id == bindparam("work_id"),
        chapters.c.number <= bindparam("upto"),
        prose_blocks.c.han_count >= bindparam("min_han"),
    )
    .order_by(chapters.c.number.desc())
)
_RECENT_LENGTHS = Prepared(_RECENT_QUERY)
_RECENT_LENGTHS_LIMITED = Prepared(_RECENT_QUERY.limit(bindparam("limit")))
