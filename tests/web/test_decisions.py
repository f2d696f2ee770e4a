"""The author's decisions from the page go through the CLI's services with the same idempotency;
the menu offers only what the state allows; a stale decision changes nothing and says why."""

from __future__ import annotations

import yaml
from sqlalchemy import func, select

from muse.flow.candidate_facts import list_candidate_facts
from muse.flow.tables import candidates, decisions, runs
from muse.knowledge.card_import import import_cards_yaml
from muse.knowledge.conflicts import list_conflicts
from muse.knowledge.drafts import list_drafts
from muse.knowledge.facts import fact_ledger_entries
from muse.planning.fine_outlines import save_fine_outline
from muse.planning.sections import get_section
from muse.works import catalog
from tests.web.helpers import CLASH_YAML, command_id, demo_file, finish_task, post, wait_for_task


def _state(engine, candidate_id: str) -> str:
    with engine.connect() as conn:
        return conn.execute(
            select(candidates.c.state).where(candidates.c.id == candidate_id)
        ).scalar_one()


def _chapters(engine, work_id: int) -> int:
    with engine.connect() as conn:
        return len(catalog.list_chapters(conn, work_id))


def _decision_count(engine) -> int:
    with engine.connect() as conn:
        return conn.execute(select(func.count()).select_from(decisions)).scalar_one()


def test_accept_from_the_page_makes_the_canonical_chapter_and_a_double_click_is_one_decision(
    client, csrf, engine, written
):
    page = client.get(f"/candidates/{written.candidate_id}").text
    assert 'id="accept-button"' in page
    cmd = command_id(page, "accept")
    r = post(client, f"/candidates/{written.candidate_id}/accept", csrf, command_id=cmd)
    assert r.status_code == 200, r.text
    assert "已成为正式正文" in r.text and 'id="to-chapter"' in r.text
    assert _state(engine, written.candidate_id) == "ACCEPTED"
    chapter = client.get(f"/works/{written.work_id}/chapters/5").text
    assert "采纳候选" in chapter and written.candidate_id in chapter
    again = post(client, f"/candidates/{written.candidate_id}/accept", csrf, command_id=cmd)
    assert again.status_code == 200 and "重复提交，未再次执行" in again.text
    assert _decision_count(engine) == 1
    after = client.get(f"/candidates/{written.candidate_id}").text
    for button in ("accept-button", "edit-link", "revise-button", "discard-button"):
        assert f'id="{button}"' not in after  # ACCEPTED: the menu offers nothing


def test_a_stale_accept_is_refused_in_chinese_and_changes_nothing(client, csrf, engine, written):
    page = client.get(f"/candidates/{written.candidate_id}").text
    body = page.split('id="candidate-body">')[1].split("</div>")[0]
    edited = client.get(f"/candidates/{written.candidate_id}/edit").text
    text = edited.split('id="editor">')[1].split("</textarea>")[0]
    assert text  # the editor holds the candidate's body
    del body
    r = post(
        client,
        f"/candidates/{written.candidate_id}/edit",
        csrf,
        body=_unescape(text) + "\n他长叹一声，收了心神。",
        expected_revision="0",
        command_id=command_id(edited, "edit"),
    )
    assert r.status_code == 303, r.text
    wait_for_task(client, r.headers["location"])
    stale = post(
        client,
        f"/candidates/{written.candidate_id}/accept",
        csrf,
        command_id=command_id(page, "accept"),  # the page the author had open before the edit
    )
    assert stale.status_code == 409
    assert "不能采纳" in stale.text and "没有任何改动" in stale.text
    assert _chapters(engine, written.work_id) == 4
    assert _state(engine, written.candidate_id) == "ARCHIVED"


def test_edit_and_merge_makes_a_new_version_that_is_checked_again(client, csrf, engine, written):
    edited = client.get(f"/candidates/{written.candidate_id}/edit").text
    text = _unescape(edited.split('id="editor">')[1].split("</textarea>")[0])
    r = post(
        client,
        f"/candidates/{written.candidate_id}/edit",
        csrf,
        body=text.replace("石壁上隐隐现出《太虚真经》四个古字，转瞬又不见了。", ""),
        expected_revision="0",
        command_id=command_id(edited, "edit"),
    )
    assert r.status_code == 303
    live = client.get(r.headers["location"]).text
    assert "实时进度" in live
    landing, fragment = finish_task(client, r.headers["location"])
    assert "复检通过" in fragment
    with engine.connect() as conn:
        rows = conn.execute(
            select(candidates.c.id, candidates.c.version, candidates.c.state)
            .where(candidates.c.work_id == written.work_id)
            .order_by(candidates.c.version)
        ).all()
    assert [(v, s) for _, v, s in rows] == [(1, "ARCHIVED"), (2, "PASSED")]
    assert landing == f"/candidates/{rows[1].id}"
    assert "检测" in fragment  # the re-check's stored events were shown as they arrived
    new = client.get(landing).text
    assert "v1 → v2 的差异" in new and "作者修改" in new
    assert "finding-medium" not in new  # the author removed the flagged sentence; re-checked clean


def test_an_edit_against_a_stale_revision_is_refused_and_keeps_nothing_half_done(
    client, csrf, engine, written
):
    edited = client.get(f"/candidates/{written.candidate_id}/edit").text
    r = post(
        client,
        f"/candidates/{written.candidate_id}/edit",
        csrf,
        body="他长叹一声。" * 50,
        expected_revision="3",
        command_id=command_id(edited, "edit"),
    )
    assert r.status_code == 303
    landing, fragment = finish_task(client, r.headers["location"])
    assert landing is None and "修订版" in fragment  # stays on the page and says why
    assert _state(engine, written.candidate_id) == "PASSED"
    empty = post(client, f"/candidates/{written.candidate_id}/edit", csrf, body="  ")
    assert empty.status_code == 409 and "正文是空的" in empty.text


def test_discard_from_the_page_and_a_second_discard_is_refused(client, csrf, engine, written):
    page = client.get(f"/candidates/{written.candidate_id}").text
    r = post(
        client,
        f"/candidates/{written.candidate_id}/discard",
        csrf,
        command_id=command_id(page, "discard"),
    )
    assert r.status_code == 200 and "丢弃" in r.text
    assert _state(engine, written.candidate_id) == "DISCARDED"
    again = post(
        client, f"/candidates/{written.candidate_id}/discard", csrf, command_id="cmd_other"
    )
    assert again.status_code == 409 and "不能丢弃" in again.text
    after = client.get(f"/candidates/{written.candidate_id}").text
    assert 'id="discard-button"' not in after and 'id="accept-button"' not in after
    assert 'id="revise-button"' in after  # a discarded candidate can still start a new round


def test_revise_starts_the_next_round_live_and_lands_on_the_new_candidate(
    client, csrf, engine, written
):
    page = client.get(f"/candidates/{written.candidate_id}").text
    words = "改：结尾换成悬念"
    r = post(
        client,
        f"/candidates/{written.candidate_id}/revise",
        csrf,
        words=words,
        command_id=command_id(page, "revise"),
    )
    assert r.status_code == 303  # a new run of the chapter: the write N live page shows it
    assert r.headers["location"].startswith(f"/works/{written.work_id}/writing/5?")
    live = client.get(r.headers["location"]).text
    assert "实时进度" in live and "改写第 5 章" in live and "已落库" in live
    landing = wait_for_task(client, r.headers["location"])
    assert landing.startswith("/candidates/") and landing != f"/candidates/{written.candidate_id}"
    new = client.get(landing).text
    assert f'id="item-7">{words}<' in new  # item 7 is the author's words, verbatim
    path, _, query = r.headers["location"].partition("?")
    timeline = client.get(f"{path}/progress?{query}").text
    assert "检索" in timeline or "写作" in timeline  # the nodes the run went through


def test_an_empty_revise_is_refused(client, csrf, written):
    r = post(client, f"/candidates/{written.candidate_id}/revise", csrf, words="  ")
    assert r.status_code == 409 and "改写指令不能为空" in r.text


def test_write_from_the_page_runs_node_by_node_and_lands_on_the_candidate(
    client, csrf, engine, work_id, flagged_writer
):
    overview = client.get(f"/works/{work_id}").text
    assert "开始写第 5 章" in overview
    r = post(
        client, f"/works/{work_id}/write", csrf, chapter="5", provider="offline", model="offline-1"
    )
    assert r.status_code == 303
    landing = wait_for_task(client, r.headers["location"])
    assert landing.startswith("/candidates/")
    path, _, query = r.headers["location"].partition("?")
    progress = client.get(f"{path}/progress?{query}").text
    assert progress.count("<li>") >= 4  # the stored nodes of the run, in order
    with engine.connect() as conn:
        assert conn.execute(select(runs.c.state)).scalar_one() == "shadow_ready"


def test_writing_a_chapter_that_is_not_next_is_refused_before_anything_starts(
    client, csrf, engine, work_id
):
    r = post(
        client, f"/works/{work_id}/write", csrf, chapter="9", provider="offline", model="offline-1"
    )
    assert r.status_code == 400 and "只能续写下一章（第 5 章）" in r.text
    with engine.connect() as conn:
        assert conn.execute(select(func.count()).select_from(runs)).scalar_one() == 0


def test_drafts_are_confirmed_in_bulk_and_conflicts_resolved_from_the_page(
    client, csrf, engine, work_id
):
    with engine.begin() as conn:
        import_cards_yaml(conn, work_id, CLASH_YAML, filename="clash.yaml")
        pending = {d.name: d for d in list_drafts(conn, work_id)}
        [conflict] = list_conflicts(conn, work_id)
    assert set(pending) == {"孙悟空", "混世魔王"}
    listing = client.get(f"/works/{work_id}/drafts").text
    assert "混世魔王" in listing
    r = post(
        client,
        f"/works/{work_id}/drafts/decide",
        csrf,
        action="confirm",
        draft_id=[pending["混世魔王"].id],
    )
    assert r.status_code == 200 and "已确认：混世魔王" in r.text
    conflicts = client.get(f"/works/{work_id}/conflicts").text
    assert "弼马温" in conflicts and "花果山水帘洞美猴王" in conflicts
    none = post(client, f"/conflicts/{conflict.id}/resolve", csrf, work_id=str(work_id))
    assert none.status_code == 409  # no choice made: refused, nothing changed
    done = post(
        client, f"/conflicts/{conflict.id}/resolve", csrf, work_id=str(work_id), resolution="keep"
    )
    assert done.status_code == 200 and "保留原卡" in done.text
    twice = post(
        client, f"/conflicts/{conflict.id}/resolve", csrf, work_id=str(work_id), resolution="keep"
    )
    assert twice.status_code == 409
    with engine.connect() as conn:
        assert list_conflicts(conn, work_id) == []


def test_a_draft_rejected_from_the_page(client, csrf, engine, work_id):
    with engine.begin() as conn:
        import_cards_yaml(conn, work_id, CLASH_YAML, filename="clash.yaml")
        draft = next(d for d in list_drafts(conn, work_id) if d.name == "混世魔王")
    r = post(client, f"/works/{work_id}/drafts/decide", csrf, action="reject", draft_id=[draft.id])
    assert r.status_code == 200 and "已驳回：混世魔王" in r.text
    nothing = post(client, f"/works/{work_id}/drafts/decide", csrf, action="confirm")
    assert nothing.status_code == 409 and "请至少勾选一份草稿" in nothing.text


def test_plan_sections_are_confirmed_and_discarded_from_the_page(client, csrf, engine, work_id):
    outline = yaml.safe_load(demo_file("fine_outline_5.yaml"))
    with engine.begin() as conn:
        one = save_fine_outline(conn, work_id, {**outline, "target_chapter": 6})
        two = save_fine_outline(conn, work_id, {**outline, "target_chapter": 7})
    page = client.get(f"/works/{work_id}/plan").text
    assert one in page and two in page
    r = post(client, f"/plan-sections/{one}/confirm", csrf)
    assert r.status_code == 200 and "已确认" in r.text
    d = post(client, f"/plan-sections/{two}/discard", csrf)
    assert d.status_code == 200 and "已丢弃" in d.text
    again = post(client, f"/plan-sections/{two}/confirm", csrf)
    assert again.status_code == 409 and "没有任何改动" in again.text
    with engine.connect() as conn:
        assert (get_section(conn, one).state, get_section(conn, two).state) == (
            "confirmed",
            "discarded",
        )


def _unescape(html_text: str) -> str:
    import html

    return html.unescape(html_text)


def test_fact_deltas_proposed_from_the_page_are_approved_with_the_accept(
    client, csrf, engine, written
):
    r = post(
        client,
        f"/candidates/{written.candidate_id}/facts",
        csrf,
        provider="offline",
        model="offline-1",
    )
    assert r.status_code == 200, r.text
    with engine.connect() as conn:
        deltas = list_candidate_facts(conn, written.candidate_id).deltas
    assert deltas, "the offline extractor proposes facts from the candidate's body"
    page = client.get(f"/candidates/{written.candidate_id}").text
    assert f'name="approve_fact" value="{deltas[0].id}"' in page
    accepted = post(
        client,
        f"/candidates/{written.candidate_id}/accept",
        csrf,
        command_id=command_id(page, "accept"),
        approve_fact=[deltas[0].id],
    )
    assert accepted.status_code == 200 and deltas[0].id in accepted.text
    with engine.connect() as conn:
        ledger = fact_ledger_entries(conn, written.work_id)
    assert [e.delta_id for e in ledger] == [deltas[0].id]


def test_an_accept_after_another_version_became_canon_is_refused(client, csrf, engine, written):
    page = client.get(f"/candidates/{written.candidate_id}").text  # round 1, still PASSED
    r = post(
        client,
        f"/candidates/{written.candidate_id}/revise",
        csrf,
        words="改：结尾换成悬念",
        command_id=command_id(page, "revise"),
    )
    second = wait_for_task(client, r.headers["location"]).split("/")[-1]
    accepted = post(
        client,
        f"/candidates/{second}/accept",
        csrf,
        command_id=command_id(client.get(f"/candidates/{second}").text, "accept"),
    )
    assert accepted.status_code == 200 and "已成为正式正文" in accepted.text
    with engine.connect() as conn:
        canon = catalog.get_chapter_text(conn, written.work_id, 5).text
    stale = post(
        client,
        f"/candidates/{written.candidate_id}/accept",
        csrf,
        command_id=command_id(page, "accept"),  # the page of round 1, open all along
    )
    assert stale.status_code == 409 and "在本次运行开始后已被改动（修订版 0 → 1）" in stale.text
    with engine.connect() as conn:
        assert catalog.get_chapter_text(conn, written.work_id, 5).text == canon  # round 2's
    assert _state(engine, second) == "ACCEPTED"


def test_a_double_clicked_edit_makes_one_version_and_both_pages_land_on_it(
    client, csrf, engine, written
):
    edited = client.get(f"/candidates/{written.candidate_id}/edit").text
    text = _unescape(edited.split('id="editor">')[1].split("</textarea>")[0])
    form = {
        "body": text + "\n他长叹一声，收了心神。",
        "expected_revision": "0",
        "command_id": command_id(edited, "edit"),
    }
    first = post(client, f"/candidates/{written.candidate_id}/edit", csrf, **form)
    second = post(client, f"/candidates/{written.candidate_id}/edit", csrf, **form)
    landings = {wait_for_task(client, r.headers["location"]) for r in (first, second)}
    with engine.connect() as conn:
        versions = conn.execute(
            select(candidates.c.id, candidates.c.version).where(
                candidates.c.run_id == written.run_id
            )
        ).all()
    assert sorted(v for _, v in versions) == [1, 2]  # one new version, not two
    assert landings == {f"/candidates/{next(i for i, v in versions if v == 2)}"}
