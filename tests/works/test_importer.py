"""Import into the database: one transaction, reported gaps, refused duplicates, nothing lost."""

import pytest
from sqlalchemy import func, select

from muse.core.errors import ImportFailed
from muse.works import catalog
from muse.works.importer import analyse, import_book
from muse.works.tables import chapters, prose_blocks, volumes, works


def _book(*numbers: int, volume: bool = False) -> bytes:
    parts = ["前言：这是卷首的话。"]
    if volume:
        parts.append("第一卷 开篇")
    for n in numbers:
        parts.append(f"第{n}章 标题{n}\n正文第{n}章的内容，林远行走山间。")
    return "\n\n".join(parts).encode("utf-8")


def _counts(engine) -> tuple[int, int, int, int]:
    with engine.connect() as conn:
        return tuple(
            conn.execute(select(func.count()).select_from(t)).scalar()
            for t in (works, chapters, prose_blocks, volumes)
        )


def test_import_writes_work_chapters_revisions_and_volumes(engine):
    report = import_book(
        engine, _book(1, 2, 3, volume=True), title="书", source_kind="public_domain"
    )
    assert report.work_id is not None and not report.dry_run
    assert _counts(engine) == (1, 3, 3, 1)
    with engine.connect() as conn:
        info = catalog.work_info(conn, report.work_id)
        listed = catalog.list_chapters(conn, report.work_id)
        front = conn.execute(select(works.c.front_matter)).scalar()
    assert info.source_kind == "public_domain" and info.source_version.startswith("sha256:")
    assert [(c.number, c.title, c.volume, c.revision) for c in listed] == [
        (1, "标题1", "开篇", 1),
        (2, "标题2", "开篇", 1),
        (3, "标题3", "开篇", 1),
    ]
    assert front == "前言：这是卷首的话。"


def test_dry_run_writes_nothing(engine):
    report = import_book(engine, _book(1, 2), title="书", dry_run=True)
    assert report.dry_run and len(report.chapters) == 2
    assert _counts(engine) == (0, 0, 0, 0)


def test_gaps_are_reported_not_renumbered(engine):
    report = import_book(engine, _book(1, 2, 5, 6), title="书")
    assert report.gaps == ((3, 4),)
    assert any("3–4" in w for w in report.warnings)
    with engine.connect() as conn:
        assert [c.number for c in catalog.list_chapters(conn, report.work_id)] == [1, 2, 5, 6]


def test_duplicate_numbers_are_refused_naming_the_lines(engine):
    with pytest.raises(ImportFailed, match="章号重复") as err:
        import_book(engine, _book(1, 2, 2, 3), title="书")
    assert "第 2 章" in str(err.value) and "行" in str(err.value)
    assert _counts(engine) == (0, 0, 0, 0)


def test_failure_midway_leaves_nothing_behind(engine):
    numbers = list(range(1, 451))  # more than one insert batch

    def explode(done: int, total: int) -> None:
        if done > 200:
            raise RuntimeError("磁盘已满（模拟）")

    with pytest.raises(RuntimeError):
        import_book(engine, _book(*numbers), title="书", progress=explode)
    assert _counts(engine) == (0, 0, 0, 0)


def test_progress_reports_every_batch_up_to_the_total(engine):
    seen = []
    import_book(
        engine,
        _book(*range(1, 451)),
        title="书",
        progress=lambda done, total: seen.append((done, total)),
    )
    assert seen == [(200, 450), (400, 450), (450, 450)]


def test_file_without_chapters_is_refused(engine):
    with pytest.raises(ImportFailed, match="章节标题"):
        analyse("只是一段没有章节标题的文字。".encode(), "书")


def test_existing_works_survive_a_failed_import(engine):
    first = import_book(engine, _book(1, 2), title="第一本")
    with pytest.raises(ImportFailed):
        import_book(engine, b"\xff\xfe\xfa\x00\x00garbage", title="坏")
    with engine.connect() as conn:
        assert [w.id for w in catalog.list_works(conn)] == [first.work_id]


def test_explicit_renumber_numbers_by_position_and_says_so(engine):
    data = "第一卷 上\n\n第1章 甲\n正文甲。\n\n第2章 乙\n正文乙。\n\n第二卷 下\n\n第1章 丙\n正文丙。\n".encode()
    with pytest.raises(ImportFailed, match="--renumber"):
        import_book(engine, data, title="书")
    report = import_book(engine, data, title="书", renumber=True)
    with engine.connect() as conn:
        listed = catalog.list_chapters(conn, report.work_id)
    assert [(c.number, c.title, c.volume) for c in listed] == [
        (1, "甲", "上"),
        (2, "乙", "上"),
        (3, "丙", "下"),
    ]
    assert any("第1→3" in w for w in report.warnings)
