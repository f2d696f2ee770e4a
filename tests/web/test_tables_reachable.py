"""Every table of the schema has a page that shows its rows (001 §8.6: 看板看不到 = 没落库).

``TABLE_PAGES`` (muse.web.routes.records) names, for every table, the page that shows its rows in
context; a table added to the schema without an entry fails here, loudly, by name. After the whole
chapter cycle (write, accept, post-chapter extraction), every table that has rows shows its newest
row on the records page, and the main tables show a row on their own page too. To map a new
table, add it to ``TABLE_PAGES`` and, if it has a page of its own, a probe to ``IN_CONTEXT``.
"""

from __future__ import annotations

from collections.abc import Callable

from sqlalchemy import Connection, func, select, text

from muse.flow.accept import accept_candidate
from muse.store.engine import reading
from muse.store.migrate import load_all_tables
from muse.web.routes.records import TABLE_PAGES
from muse.worker.loop import Worker

Probe = Callable[[Connection, int], tuple[str, str]]  # (url, text the page must show)


def _one(conn: Connection, sql: str, **params) -> str:
    return str(conn.execute(text(sql), params).scalar_one())


IN_CONTEXT: dict[str, Probe] = {
    "works": lambda c, w: (f"/works/{w}", _one(c, "select title from works where id = :w", w=w)),
    "chapters": lambda c, w: (
        f"/works/{w}/chapters",
        _one(c, "select title from chapters where work_id = :w and number = 5", w=w),
    ),
    "prose_blocks": lambda c, w: (f"/works/{w}/chapters/5", "采纳候选"),
    "candidates": lambda c, w: (
        f"/works/{w}/candidates",
        _one(c, "select id from candidates where work_id = :w", w=w),
    ),
    "decisions": lambda c, w: (
        "/candidates/" + _one(c, "select candidate_id from decisions"),
        _one(c, "select command_id from decisions"),
    ),
    "runs": lambda c, w: (f"/works/{w}/runs", _one(c, "select id from runs")),
    "run_events": lambda c, w: ("/runs/" + _one(c, "select id from runs"), "节点时间线"),
    "model_calls": lambda c, w: (
        "/runs/" + _one(c, "select id from runs"),
        "/model-calls/" + _one(c, "select id from model_calls order by started_at limit 1"),
    ),
    "tool_reads": lambda c, w: (
        "/runs/" + _one(c, "select id from runs"),
        _one(c, "select tool from tool_reads order by id limit 1"),
    ),
    "context_snapshots": lambda c, w: (
        "/contexts/" + _one(c, "select id from context_snapshots"),
        _one(c, "select sha256 from context_snapshots")[:16],
    ),
    "authorization_snapshots": lambda c, w: (
        "/runs/" + _one(c, "select id from runs"),
        _one(c, "select authorization_snapshot_id from runs"),
    ),
    "cards": lambda c, w: (f"/works/{w}/cards", "孙悟空"),
    "card_milestones": lambda c, w: (
        "/works/{}/cards/{}".format(w, _one(c, "select id from cards where name = '孙悟空'")),
        "龙宫得宝",
    ),
    "source_refs": lambda c, w: (f"/works/{w}/chapters/1", "美猴王领一群猿猴"),
    "plan_sections": lambda c, w: (f"/works/{w}/plan", _one(c, "select id from plan_sections")),
    "jobs": lambda c, w: (f"/works/{w}/jobs", _one(c, "select id from jobs limit 1")),
    "search_index_works": lambda c, w: (
        f"/works/{w}/library",
        _one(c, "select index_version from search_index_works where work_id = :w", w=w),
    ),
    "search_index_chapters": lambda c, w: (f"/works/{w}/library", "index/5"),
    "search_chunks": lambda c, w: (
        f"/works/{w}/index/1",
        _one(c, "select sha256 from search_chunks where chapter = 1 and seq = 0")[:12],
    ),
    "knowledge_versions": lambda c, w: (
        f"/works/{w}/library",
        _one(c, "select token from knowledge_versions where work_id = :w", w=w),
    ),
    "model_policy_versions": lambda c, w: (f"/works/{w}/models", "role-policy-v1"),
}


def test_every_table_of_the_schema_is_mapped_to_a_page():
    tables = set(load_all_tables().tables)
    unmapped = sorted(tables - set(TABLE_PAGES))
    assert not unmapped, (
        f"these tables have no page that shows their rows: {unmapped}; "
        "add them to muse.web.routes.records.TABLE_PAGES (and a page if the author needs one)"
    )
    assert not set(TABLE_PAGES) - tables, "TABLE_PAGES names a table that no longer exists"


def test_after_a_chapter_cycle_every_stored_row_is_reachable(client, engine, written):
    assert accept_candidate(engine, written.candidate_id).accepted
    Worker(engine).run_once()
    metadata = load_all_tables()
    filled = []
    with reading(engine) as conn:
        for name, table in sorted(metadata.tables.items()):
            if conn.execute(select(func.count()).select_from(table)).scalar_one() == 0:
                continue
            filled.append(name)
            key = list(table.primary_key.columns)[0]
            newest = conn.execute(select(key).order_by(key.desc()).limit(1)).scalar_one()
            r = client.get(f"/records/{name}")
            assert r.status_code == 200, name
            assert str(newest) in r.text, f"/records/{name} does not show its newest row"
        for name, probe in IN_CONTEXT.items():
            url, expected = probe(conn, written.work_id)
            page = client.get(url)
            assert page.status_code == 200, url
            assert expected in page.text, f"{name}: {url} does not show {expected!r}"
    assert {"candidates", "model_calls", "tool_reads", "decisions", "prose_blocks"} <= set(filled)
