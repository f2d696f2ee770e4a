"""``muse index rebuild / refresh / status`` and ``muse search``: the prose search index."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

import typer

from muse.cli.common import get_engine, work_id_for
from muse.cli.options import JsonOption, WorkOption
from muse.cli.output import console, emit, new_table
from muse.context import Hit, IndexStatus, index_status, rebuild_index, refresh_index, search_query
from muse.works import latest_chapter_number, list_works

index_app = typer.Typer(help="原文检索索引：重建、更新、查看状态。", no_args_is_help=True)

SNIPPET_CHARS = 60


@index_app.command("rebuild")
def rebuild(work: str = WorkOption, json_out: bool = JsonOption) -> None:
    """按当前正式正文和卡片名/别名词典重建整部作品的检索索引。"""
    work_id = work_id_for(work)
    with get_engine().begin() as conn:
        report = rebuild_index(conn, work_id)
    data = {
        "workId": report.work_id,
        "indexVersion": report.index_version,
        "chapters": report.chapters,
        "chunks": report.chunks,
        "seconds": report.seconds,
    }
    emit(
        data,
        json_out,
        lambda d: console.print(
            f"已重建作品 {d['workId']} 的检索索引：{d['chapters']} 章，{d['chunks']} 个片段，"
            f"用时 {d['seconds']} 秒。\n索引版本：{d['indexVersion']}"
        ),
    )


@index_app.command("refresh")
def refresh(work: str = WorkOption, json_out: bool = JsonOption) -> None:
    """只更新过期的章节；卡片词典变了则整部重建。"""
    work_id = work_id_for(work)
    with get_engine().begin() as conn:
        before = index_status(conn, work_id)
        version = refresh_index(conn, work_id)
    rebuilt = before.built_version != before.current_version
    data = {
        "workId": work_id,
        "indexVersion": version,
        "rebuilt": rebuilt,
        "reindexedChapters": [] if rebuilt else list(before.stale),
        "removedChapters": [] if rebuilt else list(before.orphaned),
    }
    emit(data, json_out, _render_refresh)


def _render_refresh(d: dict[str, Any]) -> None:
    if d["rebuilt"]:
        console.print(f"卡片词典或索引格式有变，已整部重建。索引版本：{d['indexVersion']}")
    elif d["reindexedChapters"] or d["removedChapters"]:
        console.print(
            f"已更新 {len(d['reindexedChapters'])} 章，移除 {len(d['removedChapters'])} 章。"
        )
    else:
        console.print("索引已是最新，无需更新。")


@index_app.command("status")
def status(work: str = WorkOption, json_out: bool = JsonOption) -> None:
    """查看检索索引是否与正文、卡片词典一致。"""
    with get_engine().connect() as conn:
        ids = [work_id_for(work)] if work else [w.id for w in list_works(conn)]
        statuses = [index_status(conn, work_id) for work_id in ids]
    emit([_status_dict(s) for s in statuses], json_out, _render_status)


def _status_dict(s: IndexStatus) -> dict[str, Any]:
    return {
        "workId": s.work_id,
        "builtVersion": s.built_version,
        "currentVersion": s.current_version,
        "chapters": s.chapters,
        "indexedChapters": s.indexed_chapters,
        "chunks": s.chunks,
        "staleChapters": list(s.stale),
        "orphanedChapters": list(s.orphaned),
        "fresh": s.fresh,
    }


def _render_status(rows: list[dict[str, Any]]) -> None:
    if not rows:
        console.print("还没有作品。")
        return
    table = new_table("作品", "章数", "已索引", "片段", "过期章节", "状态")
    for r in rows:
        table.add_row(
            str(r["workId"]),
            str(r["chapters"]),
            str(r["indexedChapters"]),
            str(r["chunks"]),
            _chapters(r["staleChapters"] + r["orphanedChapters"]),
            _state_label(r),
        )
    console.print(table)


def _state_label(r: dict[str, Any]) -> str:
    if r["builtVersion"] is None:
        return "[red]未建立[/]（muse index rebuild）"
    if r["builtVersion"] != r["currentVersion"]:
        return "[yellow]词典已变，需重建[/]（muse index refresh）"
    if not r["fresh"]:
        return "[yellow]有过期章节[/]（muse index refresh）"
    return "[green]最新[/]"


def _chapters(numbers: list[int]) -> str:
    shown = "、".join(map(str, numbers[:10]))
    return shown + (f" 等 {len(numbers)} 章" if len(numbers) > 10 else "")


def search(
    query: str = typer.Argument(..., help="卡片名/别名（按卡片的全部别名检索）或任意文字"),
    as_of: int = typer.Option(None, "--as-of", help="冻结点章号：只检索此章及之前；默认最新章"),
    limit: int = typer.Option(10, "--limit", "-n", help="最多显示几条"),
    work: str = WorkOption,
    json_out: bool = JsonOption,
) -> None:
    """在正式正文中检索人名、别名或文字，结果带章号与位置。"""
    work_id = work_id_for(work)
    with get_engine().connect().execution_options(sqlite_begin="DEFERRED") as conn:
        max_chapter = as_of if as_of is not None else (latest_chapter_number(conn, work_id) or 0)
        result = search_query(conn, work_id, query, max_chapter=max_chapter, limit=limit)
    data = {
        "workId": work_id,
        "query": result.query,
        "mode": result.mode,
        "terms": list(result.terms),
        "asOf": result.max_chapter,
        "indexVersion": result.index_version,
        "hits": [_hit_dict(h) for h in result.hits],
    }
    emit(data, json_out, _render_search)


def _hit_dict(hit: Hit) -> dict[str, Any]:
    data = asdict(hit)
    return {
        "chunkId": data["chunk_id"],
        "chapter": data["chapter"],
        "revision": data["revision"],
        "start": data["start"],
        "end": data["end"],
        "score": data["score"],
        "sha256": data["sha256"],
        "text": data["text"],
    }


def _render_search(d: dict[str, Any]) -> None:
    how = "卡片名及别名：" + "、".join(d["terms"]) if d["mode"] == "card" else "文字检索"
    console.print(f"检索「{d['query']}」（{how}），截至第 {d['asOf']} 章：")
    if not d["hits"]:
        console.print("没有找到。")
        return
    table = new_table("章", "修订", "位置", "得分", "片段")
    for h in d["hits"]:
        snippet = h["text"].replace("\n", " ")
        if len(snippet) > SNIPPET_CHARS:
            snippet = snippet[:SNIPPET_CHARS] + "…"
        table.add_row(
            str(h["chapter"]),
            str(h["revision"]),
            f"{h['start']}–{h['end']}",
            f"{h['score']:.4g}",
            snippet,
        )
    console.print(table)


def register(app: typer.Typer) -> None:
    app.add_typer(index_app, name="index")
    app.command("search")(search)
