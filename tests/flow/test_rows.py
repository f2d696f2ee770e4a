"""The typed rows name exactly the columns of their tables, in order, and read a real row."""

from __future__ import annotations

from dataclasses import fields

import pytest
from sqlalchemy import Table, select

from muse.flow.decisions import load
from muse.flow.production import write_chapter
from muse.flow.rows import CandidateRow, DecisionRow, RunRow
from muse.flow.tables import candidates, decisions, runs
from tests.support.marked_book import NEXT


@pytest.mark.parametrize(
    ("row", "table"), [(RunRow, runs), (CandidateRow, candidates), (DecisionRow, decisions)]
)
def test_a_typed_row_has_every_column_of_its_table(row: type, table: Table) -> None:
    assert [f.name for f in fields(row)] == [c.name for c in table.columns]


def test_load_reads_the_candidate_and_its_run_as_typed_rows(engine, book) -> None:  # noqa: F811
    summary = write_chapter(engine, book, NEXT, provider="offline", model="offline-1")
    with engine.connect() as conn:
        candidate_id = conn.execute(
            select(candidates.c.id).where(candidates.c.run_id == summary.run_id)
        ).scalar_one()
        cand, run = load(conn, candidate_id, lock=False)
    assert isinstance(cand, CandidateRow) and isinstance(run, RunRow)
    assert (cand.run_id, cand.chapter, cand.state) == (run.id, NEXT, "PASSED")
    assert (run.state, run.target_chapter, run.work_id) == ("shadow_ready", NEXT, book)
    assert cand.writer_output["candidateSha256"] == cand.sha256
