"""Same plan + same index versions ⇒ same planId and manifestId: across processes and backends."""

import json
import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
from sqlalchemy import text

from muse.context.retrieval_plan import plan_id
from muse.context.writer_context import freeze_context
from muse.knowledge.card_import import import_cards_yaml
from muse.planning.fine_outlines import confirm_section, load_confirmed, save_fine_outline
from muse.store.engine import make_engine
from muse.store.migrate import upgrade
from muse.works.authorization import take_snapshot
from muse.works.canonical import add_chapter
from muse.works.catalog import create_work
from tests.support.marked_book import CHAPTERS, chapter_text, fine_outline

from .test_card_context import CARDS

ROOT = Path(__file__).resolve().parents[2]


def build_book(engine) -> int:
    with engine.begin() as conn:
        work_id = create_work(conn, "标记之书", default_chapter_chars=2500)
        for n in range(1, CHAPTERS + 1):
            add_chapter(conn, work_id, n, f"第{n}章", chapter_text(n))
        confirm_section(conn, save_fine_outline(conn, work_id, fine_outline(CHAPTERS + 1)))
        import_cards_yaml(conn, work_id, CARDS, confirm=True)
    return work_id


def identity(url: str, work_id: int, run_id: str) -> dict:
    engine = make_engine(url)
    with engine.begin() as conn:
        section_id, outline = load_confirmed(conn, work_id, CHAPTERS + 1)
        frozen = freeze_context(
            conn,
            work_id=work_id,
            outline=outline,
            outline_section_id=section_id,
            run_id=run_id,
            attempt=1,
            as_of=CHAPTERS,
            authorization=take_snapshot(conn, work_id, "production"),
            store=False,
        )
    engine.dispose()
    ctx = frozen.context
    return {
        "planId": plan_id(ctx.retrieval_plan),
        "manifestId": ctx.manifest.manifest_id,
        "cardIndexVersion": ctx.retrieval_plan.card_index_version,
        "proseIndexVersion": ctx.retrieval_plan.prose_index_version,
    }


def _in_subprocess(url: str, work_id: int, run_id: str) -> dict:
    code = (
        "import json, sys; from tests.context.test_determinism import identity; "
        f"print(json.dumps(identity({url!r}, {work_id}, {run_id!r})))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_two_processes_give_the_same_ids(db_url, engine):
    work_id = build_book(engine)
    first = _in_subprocess(db_url, work_id, "run_aaaaaaaaaaaaaaaaaaaa")
    second = _in_subprocess(db_url, work_id, "run_bbbbbbbbbbbbbbbbbbbb")
    assert first == second == identity(db_url, work_id, "run_cccccccccccccccccccc")
    assert first["cardIndexVersion"] != "cards-none"


@pytest.fixture
def other_backend_url(tmp_path):
    """A fresh migrated database on the backend this run is NOT using."""
    pg = os.environ.get("MUSE_TEST_DATABASE_URL")
    if os.environ.get("MUSE_TEST_BACKEND", "sqlite") == "postgresql":
        url = f"sqlite:///{tmp_path / 'other.db'}"
        upgrade(make_engine(url))
        yield url
        return
    if not pg:
        pytest.skip("MUSE_TEST_DATABASE_URL not set: the cross-backend comparison runs in CI")
    schema = f"x_{uuid.uuid4().hex[:12]}"
    admin = make_engine(pg)
    with admin.begin() as conn:
        conn.execute(text(f'CREATE SCHEMA "{schema}"'))
    url = pg + ("&" if "?" in pg else "?") + f"options=-csearch_path%3D{schema}"
    upgrade(make_engine(url))
    yield url
    with admin.begin() as conn:
        conn.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))


def test_both_backends_give_the_same_ids(db_url, engine, other_backend_url):
    here = identity(db_url, build_book(engine), "run_aaaaaaaaaaaaaaaaaaaa")
    other_engine = make_engine(other_backend_url)
    there = identity(other_backend_url, build_book(other_engine), "run_bbbbbbbbbbbbbbbbbbbb")
    other_engine.dispose()
    assert here == there
