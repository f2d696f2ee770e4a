"""A frozen WriterContext and the offline writer's WriterOutput for it (the detector is scripted
with the root conftest's ``scripted``).

The context is built the way the production run builds it (authorization snapshot, confirmed
fine outline, ``freeze_context``) on the marked book (``tests/support/marked_book.py``), without going through
``write_chapter``, so these tests exercise the quality layer alone.
"""

from dataclasses import dataclass

import pytest

from muse.context.contracts import WriterContext
from muse.context.output_contracts import WriterDraft, WriterOutput
from muse.context.writer_context import freeze_context
from muse.context.writer_output import build_output
from muse.core.ids import new_id
from muse.offline import writer as offline_writer
from muse.planning.fine_outlines import load_confirmed
from muse.works import authorization
from tests.support.marked_book import NEXT, make_book


@pytest.fixture
def book(engine) -> int:
    return make_book(engine)


@dataclass(frozen=True)
class Checked:
    work_id: int
    run_id: str
    context: WriterContext
    output: WriterOutput


@pytest.fixture
def checked(engine, book) -> Checked:
    run_id = new_id("run")
    with engine.begin() as conn:
        auth = authorization.take_snapshot(conn, book, "production")
        section_id, outline = load_confirmed(conn, book, NEXT)
        frozen = freeze_context(
            conn,
            work_id=book,
            outline=outline,
            outline_section_id=section_id,
            run_id=run_id,
            attempt=1,
            as_of=NEXT - 1,
            authorization=auth,
        )
    draft = WriterDraft.model_validate(offline_writer.write_chapter(frozen.context.wire()))
    output, unlocated = build_output(frozen.context, frozen.snapshot_id, draft, candidate_version=1)
    assert not unlocated
    return Checked(book, run_id, frozen.context, output)
