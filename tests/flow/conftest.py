"""A work ready for chapter 9: eight marked chapters and a confirmed fine outline."""

import pytest

from muse.agents.providers.offline import register_offline_generator, unregister_offline_generator
from muse.offline import writer as offline_writer
from muse.planning.fine_outlines import confirm_section, save_fine_outline
from muse.works.canonical import add_chapter
from muse.works.catalog import create_work
from tests.context.conftest import CHAPTERS, chapter_text, fine_outline  # noqa: F401

NEXT = CHAPTERS + 1


@pytest.fixture
def book(engine):
    with engine.begin() as conn:
        work_id = create_work(conn, "标记之书", default_chapter_chars=2500)
        for n in range(1, CHAPTERS + 1):
            add_chapter(conn, work_id, n, f"第{n}章", chapter_text(n))
        confirm_section(conn, save_fine_outline(conn, work_id, fine_outline(NEXT)))
    return work_id


@pytest.fixture
def scripted_writer():
    """Replace the offline writer's output for one test with ``edit(draft) -> draft``."""
    edits = []

    def generator(task_input, output_model):
        draft = offline_writer.write_chapter(task_input)
        for edit in edits:
            draft = edit(draft)
        return draft

    register_offline_generator("writer", "generate", generator)
    yield edits.append
    unregister_offline_generator("writer", "generate")
