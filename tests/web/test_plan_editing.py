"""Plan editing in the workbench: a stage's YAML edited in the page (``muse plan edit``: the same
validation and messages, a stale stage refused with the author's text kept) and batch outlines
(``muse plan draft 4 --chapters A-B``), watched on the batch page from the stored items."""

from __future__ import annotations

import html
import re
import time

import pytest
from sqlalchemy import func, select

from muse.core.errors import InvalidInput
from muse.planning import import_file
from muse.planning.tables import plan_batch_items, plan_sections
from tests.web.helpers import post


def _count(engine, stage: int = 4) -> int:
    with engine.connect() as conn:
        return conn.execute(
            select(func.count()).select_from(plan_sections).where(plan_sections.c.stage == stage)
        ).scalar_one()


def _editor(client, work_id: int, **query) -> tuple[str, str, str]:
    """(page, the YAML in the editor, the stage revision it was opened on)."""
    qs = "&".join(f"{k}={v}" for k, v in query.items())
    page = client.get(f"/works/{work_id}/plan/edit?{qs}").text
    text = html.unescape(
        page.split('id="plan-editor" spellcheck="false">')[1].split("</textarea>")[0]
    )
    base = re.search(r'name="base" value="([^"]*)"', page).group(1)
    return page, text, base


def test_a_fine_outline_is_edited_in_the_page_and_saved_as_a_new_shadow(
    client, csrf, engine, work_id
):
    plan = client.get(f"/works/{work_id}/plan").text
    assert 'id="edit-stage-4"' in plan and 'id="edit-stage-0"' in plan
    page, text, base = _editor(client, work_id, stage=4, chapter=5)
    assert (
        "编辑 阶段 4 · 细纲 · 第 5 章" in page and "target_chapter: 5" in text
    )  # the confirmed outline of chapter 5
    before = _count(engine)
    edited = text.replace("target_chars:", "# 作者在页面里改过\ntarget_chars:", 1)
    r = post(
        client, f"/works/{work_id}/plan/edit", csrf, stage="4", chapter="5", base=base, text=edited
    )
    assert r.status_code == 303, r.text
    assert r.headers["location"].endswith("?edited=1")
    section = client.get(r.headers["location"]).text
    assert "你的修改已保存为新的 Shadow" in section
    section_id = r.headers["location"].split("/")[-1].split("?")[0]
    with engine.connect() as conn:
        row = conn.execute(select(plan_sections).where(plan_sections.c.id == section_id)).one()
    assert (row.state, row.origin, row.target_chapter) == ("shadow", "edit", 5)
    assert _count(engine) == before + 1


def test_a_schema_problem_gets_the_cli_message_and_the_text_stays(
    client, csrf, engine, work_id, tmp_path
):
    _, text, base = _editor(client, work_id, stage=4, chapter=5)
    broken = re.sub(r"target_chapter: 5", "target_chapter: 第五章", text, count=1)
    assert broken != text
    r = post(
        client, f"/works/{work_id}/plan/edit", csrf, stage="4", chapter="5", base=base, text=broken
    )
    assert r.status_code == 400
    path = tmp_path / "fine.yaml"  # the same text through muse plan import / edit
    path.write_text(broken, encoding="utf-8")
    with engine.begin() as conn, pytest.raises(InvalidInput) as cli:
        import_file(conn, work_id, path, stage="4", origin="edit")
    for line in cli.value.message.replace(str(path), "编辑框").splitlines():
        assert html.escape(line, quote=False) in r.text  # file:line: field (label): message
    assert "target_chapter" in r.text and "没有任何改动" in r.text
    assert html.escape("target_chapter: 第五章", quote=False) in r.text  # the author's text
    bad_yaml = post(
        client, f"/works/{work_id}/plan/edit", csrf, stage="4", chapter="5", base=base, text="a: [1"
    )
    assert (
        bad_yaml.status_code == 400
        and "编辑框:" in bad_yaml.text
        and "YAML 格式错误" in bad_yaml.text
    )


def test_an_edit_of_a_stage_that_moved_on_is_refused_with_the_text_kept(
    client, csrf, engine, work_id
):
    _, text, base = _editor(client, work_id, stage=4, chapter=5)
    first = post(
        client,
        f"/works/{work_id}/plan/edit",
        csrf,
        stage="4",
        chapter="5",
        base=base,
        text=text.replace("target_chars:", "# 另一个窗口\ntarget_chars:", 1),
    )
    assert first.status_code == 303  # the stage has a new shadow now
    count = _count(engine)
    mine = text.replace("target_chars:", "# 我的修改\ntarget_chars:", 1)
    stale = post(
        client, f"/works/{work_id}/plan/edit", csrf, stage="4", chapter="5", base=base, text=mine
    )
    assert stale.status_code == 409
    assert "在你打开编辑框之后有了变化" in stale.text and "没有任何改动" in stale.text
    assert "# 我的修改" in stale.text  # the author's text is still in the editor
    assert _count(engine) == count
    no_csrf = client.post(
        f"/works/{work_id}/plan/edit", data={"stage": "4", "chapter": "5", "text": mine}
    )
    assert no_csrf.status_code == 403 and _count(engine) == count


def test_a_batch_of_outlines_is_drafted_and_its_items_shown(client, csrf, engine, work_id):
    r = post(
        client,
        f"/works/{work_id}/plan/batch",
        csrf,
        first="6",
        last="7",
        provider="offline",
        model="offline-1",
    )
    assert r.status_code == 303, r.text
    location = r.headers["location"]
    assert location.startswith("/plan-batches/")
    for _ in range(600):  # polls, not a clock: the batch ends by itself
        fragment = client.get(f"{location}/progress")
        if fragment.status_code == 286:
            break
        time.sleep(0.05)
    else:
        raise AssertionError("the batch never ended")
    assert "已完成" in fragment.text and "2/2" in fragment.text, fragment.text
    batch_id = location.split("/")[-1]
    with engine.connect() as conn:
        items = conn.execute(
            select(plan_batch_items).where(plan_batch_items.c.batch_id == batch_id)
        ).all()
    assert [(i.target_chapter, i.state) for i in items] == [(6, "done"), (7, "done")]
    page = client.get(location).text
    assert all(i.section_id in page and i.receipt_id[:12] in page for i in items)
    assert 'id="resume-batch"' not in page  # completed: nothing to resume
    assert f'href="/plan-batches/{batch_id}"' in client.get(f"/works/{work_id}/plan").text


def test_a_bad_batch_range_is_refused_and_nothing_stored(client, csrf, engine, work_id):
    r = post(
        client,
        f"/works/{work_id}/plan/batch",
        csrf,
        first="9",
        last="6",
        provider="offline",
        model="offline-1",
    )
    assert r.status_code == 400 and "章节范围 9–6 不合法" in r.text and "没有任何改动" in r.text
    with engine.connect() as conn:
        assert conn.execute(select(func.count()).select_from(plan_batch_items)).scalar_one() == 0
