"""What a new author does in the workbench besides deciding on candidates: create a work, import
a book (preview, then confirm), draft and confirm plan stages with the planner, edit a canonical
chapter, choose the model of a role — all through the services the CLI calls, every POST behind
the CSRF check, every stale or refused submission answered in Chinese with nothing changed."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest
from sqlalchemy import func, select

from muse.agents.tables import model_choices
from muse.core.errors import MuseError
from muse.planning.tables import plan_sections
from muse.works.catalog import get_chapter_text, list_works
from muse.works.importer import analyse
from muse.works.tables import works
from tests.web.helpers import post

BOOK = Path(__file__).resolve().parents[1] / "fixtures" / "books" / "webnovel_notes.txt"
BAD = b"\x00\x01\x02binary\xff\xfe\x00"


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def _work_count(engine) -> int:
    with engine.connect() as conn:
        return conn.execute(select(func.count()).select_from(works)).scalar_one()


def test_an_empty_work_is_created_from_the_page(client, csrf, engine):
    assert "新建作品" in client.get("/works").text
    r = post(client, "/works/create", csrf, title="  青云志  ", source="own")
    assert r.status_code == 303
    page = client.get(r.headers["location"]).text
    assert "青云志" in page and "第 1 章还没有已确认的细纲" in page
    refused = post(client, "/works/create", csrf, title="  ", source="own")
    assert refused.status_code == 400 and "书名不能为空" in refused.text
    assert _work_count(engine) == 1


def test_import_previews_chapters_and_author_notes_then_imports_once(client, csrf, engine):
    data = BOOK.read_bytes()
    fields = {"title": "青阳宗", "source": "own", "book": _b64(data), "filename": BOOK.name}
    preview = post(client, "/works/import/preview", csrf, **fields)
    assert preview.status_code == 200
    assert "识别到 3 章" in preview.text and "作者的话等非正文的行（" in preview.text
    assert "新书上传，求收藏求推荐" in preview.text  # the detected note, shown before importing
    assert _work_count(engine) == 0  # the preview wrote nothing

    r = post(client, "/works/import", csrf, **fields)
    assert r.status_code == 303
    again = post(client, "/works/import", csrf, **fields)  # a double click
    assert again.status_code == 303 and "repeated" in again.headers["location"]
    assert _work_count(engine) == 1
    with engine.connect() as conn:
        work = list_works(conn)[0]
        first = get_chapter_text(conn, work.id, 1).text
    assert work.chapter_count == 3 and "求收藏" not in first  # notes kept out of the prose
    overview = client.get(r.headers["location"]).text
    assert "导入完成" in overview


def test_a_bad_file_gets_the_cli_message_and_nothing_is_stored(client, csrf, engine):
    with pytest.raises(MuseError) as cli:
        analyse(BAD, "坏文件")
    r = post(
        client, "/works/import/preview", csrf, title="坏文件", book=_b64(BAD), filename="bad.txt"
    )
    assert r.status_code == 400 and cli.value.message in r.text and "没有写入任何内容" in r.text
    r = post(client, "/works/import", csrf, title="坏文件", book=_b64(BAD), filename="bad.txt")
    assert r.status_code == 400 and cli.value.message in r.text
    r = post(client, "/works/import/preview", csrf, title="书", book="", filename="")
    assert r.status_code == 400 and "请选择要导入的小说文件" in r.text
    r = post(client, "/works/import/preview", csrf, title="书", book=_b64(b"x"), source="stolen")
    assert r.status_code == 400 and "未知来源「stolen」" in r.text
    assert _work_count(engine) == 0


def test_an_import_without_the_csrf_token_is_refused(client, engine):
    r = client.post(
        "/works/import",
        data={"title": "书", "book": _b64(BOOK.read_bytes())},
        follow_redirects=False,
    )
    assert r.status_code == 403 and _work_count(engine) == 0


def test_the_planner_drafts_the_next_fine_outline_and_the_author_confirms_it(
    client, csrf, engine, work_id
):
    plan = client.get(f"/works/{work_id}/plan").text
    assert 'id="draft-form"' in plan
    r = post(
        client,
        f"/works/{work_id}/plan/draft",
        csrf,
        stage="4",
        chapter="6",
        provider="offline",
        model="offline-1",
    )
    assert r.status_code == 303
    section = client.get(r.headers["location"]).text
    assert "规划员已起草" in section and "【离线草稿】第6章" in section
    assert "孙悟空" in section  # the people of the recent outline, not a placeholder
    section_id = r.headers["location"].split("/")[-1].split("?")[0]
    confirmed = post(client, f"/plan-sections/{section_id}/confirm", csrf)
    assert confirmed.status_code == 200 and "已确认" in confirmed.text
    twice = post(client, f"/plan-sections/{section_id}/confirm", csrf)  # stale: already done
    assert twice.status_code == 409 and "没有任何改动" in twice.text
    with engine.connect() as conn:
        states = conn.execute(
            select(plan_sections.c.state).where(plan_sections.c.id == section_id)
        ).scalar_one()
    assert states == "confirmed"


def test_a_stage_whose_upper_stage_is_not_confirmed_shows_the_gate_blockers(
    client, csrf, engine, work_id
):
    r = post(
        client,
        f"/works/{work_id}/plan/draft",
        csrf,
        stage="1",
        provider="offline",
        model="offline-1",
    )
    assert r.status_code == 400 and "不能起草" in r.text and "阻断：" in r.text
    with engine.connect() as conn:
        assert (
            conn.execute(
                select(func.count()).select_from(plan_sections).where(plan_sections.c.stage == 1)
            ).scalar_one()
            == 0
        )


def test_a_canonical_chapter_is_edited_and_a_stale_edit_is_refused(client, csrf, engine, work_id):
    editor = client.get(f"/works/{work_id}/chapters/3/edit").text
    assert 'name="expected_revision" value="1"' in editor
    with engine.connect() as conn:
        text = get_chapter_text(conn, work_id, 3).text
    edited = text + "\n悟空回到花果山，众猴欢喜不尽。"
    r = post(client, f"/works/{work_id}/chapters/3/edit", csrf, text=edited, expected_revision="1")
    assert r.status_code == 303
    page = client.get(r.headers["location"]).text
    assert "已写入作者修改：修订版 2" in page and "众猴欢喜不尽" in page
    stale = post(
        client,
        f"/works/{work_id}/chapters/3/edit",
        csrf,
        text=text + "\n另一处修改。",
        expected_revision="1",
    )
    assert stale.status_code == 409
    assert "另一处修改。" in stale.text  # the author's text stays in the editor
    assert "当前正式正文是修订版 2" in stale.text and "没有任何改动" in stale.text
    with engine.connect() as conn:
        now = get_chapter_text(conn, work_id, 3)
    assert now.revision == 2 and "另一处修改" not in now.text


def test_a_model_is_chosen_per_role_and_an_unapproved_one_refused(client, csrf, engine, work_id):
    page = client.get(f"/works/{work_id}/models").text
    assert "网文写手" in page and "未选定" in page and "sk-" not in page
    r = post(
        client,
        f"/works/{work_id}/models",
        csrf,
        role="planner",
        provider="offline",
        model="offline-1",
    )
    assert r.status_code == 303
    assert "offline:offline-1" in client.get(r.headers["location"]).text
    bad = post(
        client, f"/works/{work_id}/models", csrf, role="planner", provider="offline", model="gpt-99"
    )
    assert bad.status_code == 400 and "没有任何改动" in bad.text
    with engine.connect() as conn:
        assert conn.execute(select(func.count()).select_from(model_choices)).scalar_one() == 1
    # the plan page's draft form now starts with the chosen planner
    assert 'name="model" value="offline-1"' in client.get(f"/works/{work_id}/plan").text
