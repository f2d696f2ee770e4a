"""The author's journey in a real browser: Playwright driving Debian's chromium (fonts-noto-cjk).

Screenshots of the main pages at 1440×900 go to ``test-artifacts/screenshots/`` (CI keeps the
folder). The tests skip, with the reason, only when ``/usr/bin/chromium`` is missing; ``.ci/run``
installs it. Waiting is on page events (navigation, selectors), never on a clock.
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
import uvicorn

from muse.flow.edit_merge import edit_candidate
from muse.web import WebSecurity, create_app

CHROMIUM = Path("/usr/bin/chromium")
SHOTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "screenshots"

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(
        not CHROMIUM.exists(),
        reason="/usr/bin/chromium is missing (apt-get install chromium fonts-noto-cjk)",
    ),
]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class LiveServer:
    def __init__(self, app, host: str = "127.0.0.1") -> None:
        self.host, self.port = host, _free_port()
        config = uvicorn.Config(app, host=host, port=self.port, log_level="warning")
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def __enter__(self) -> LiveServer:
        self.thread.start()
        started = threading.Event()
        while not self.server.started and self.thread.is_alive():
            started.wait(0.02)
        assert self.server.started, "the workbench server did not start"
        return self

    def __exit__(self, *exc) -> None:
        self.server.should_exit = True
        self.thread.join()

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=str(CHROMIUM), args=["--no-sandbox"])
        yield chromium
        chromium.close()


@pytest.fixture
def server(engine, written) -> Iterator[LiveServer]:
    with LiveServer(create_app(engine, WebSecurity())) as live:
        yield live


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1440, "height": 900}, locale="zh-CN")
    tab = context.new_page()
    yield tab
    context.close()


def shot(page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"))


def test_the_author_reads_a_chapter_sees_the_finding_accepts_and_reads_the_new_chapter(
    server, page, written
):
    page.goto(server.url + "/")
    assert page.locator("h1").inner_text() == "西游记（前四回）"
    shot(page, "01-overview")
    page.click("text=灵根育孕源流出")
    assert "第 1 章" in page.locator("h1").inner_text()
    assert "美猴王领一群猿猴" in page.locator("#chapter-text").inner_text()
    shot(page, "02-chapter")
    page.click("header nav >> text=候选稿")
    page.click(f"text={written.candidate_id}")
    finding = page.locator("#candidate-body mark.finding-medium")
    assert finding.count() == 1 and finding.inner_text() == "太虚真经"
    assert finding.is_visible()
    finding.scroll_into_view_if_needed()
    shot(page, "03-candidate-finding")
    page.goto(server.url + f"/candidates/{written.candidate_id}")
    shot(page, "04-candidate")
    page.click("text=写作依据（上下文）")
    assert "预算（tokens）" in page.content()
    shot(page, "04a-context")
    page.goto(server.url + f"/runs/{written.run_id}")
    page.locator("details[hx-get^='/model-calls/'] summary").first.click()
    page.wait_for_selector(".model-call")  # the prompt and raw output, loaded on demand
    shot(page, "04b-run")
    page.goto(server.url + f"/candidates/{written.candidate_id}")
    page.click("#accept-button")
    assert "已成为正式正文" in page.locator("#outcome").inner_text()
    page.click("#to-chapter")
    assert "第 5 章" in page.locator("h1").inner_text()
    assert "当前正式正文" in page.content()
    assert "太虚真经" in page.locator("#chapter-text").inner_text()
    shot(page, "05-new-canonical-chapter")


def test_edit_and_merge_in_the_page(server, page, written, scripted):
    release = threading.Event()
    scripted("detector", "check").edit(lambda report: (release.wait(120), report)[1])
    page.goto(server.url + f"/candidates/{written.candidate_id}")
    page.click("#edit-link")
    editor = page.locator("#editor")
    text = editor.input_value()
    shot(page, "06-editor")
    editor.fill(text.replace("石壁上隐隐现出《太虚真经》四个古字，转瞬又不见了。", ""))
    page.click("#save-edit")
    page.wait_for_url("**/editing?**")  # the re-check, live from the stored decision and run
    assert "修改后合并 · 第 5 章 v1" in page.locator("h1").inner_text()
    page.wait_for_selector("#current-node:has-text('检测中')")  # the detector is held
    shot(page, "06a-edit-recheck-live")
    release.set()  # then the page lands on v2
    page.wait_for_url(lambda url: "/candidates/" in url and "/editing" not in url, timeout=120_000)
    assert "v2" in page.locator("h1").inner_text()
    assert page.locator("#candidate-body mark.finding-medium").count() == 0
    shot(page, "07-edited-version")


def test_revise_watches_the_run_live_and_lands_on_the_new_candidate(server, page, written):
    page.goto(server.url + f"/candidates/{written.candidate_id}")
    page.fill("textarea[name=words]", "改：结尾换成悬念")
    page.click("#revise-button")
    page.wait_for_url("**/writing/5?**")  # a new run of the chapter: the write N live page
    assert "改写第 5 章" in page.locator("h1").inner_text()
    page.wait_for_url("**/candidates/**", timeout=120_000)
    assert written.candidate_id not in page.url
    assert page.locator("#item-7").inner_text() == "改：结尾换成悬念"
    shot(page, "08-revised-candidate")


def test_discard_in_the_page(server, page, written):
    page.goto(server.url + f"/candidates/{written.candidate_id}")
    page.once("dialog", lambda dialog: dialog.accept())
    page.click("#discard-button")
    assert "丢弃" in page.locator("#outcome").inner_text()
    page.click("#to-candidate")
    assert page.locator("#candidate-state").inner_text() == "已丢弃"
    assert page.locator("#accept-button").count() == 0


def test_a_stale_accept_is_refused_in_the_page(server, page, engine, written):
    page.goto(server.url + f"/candidates/{written.candidate_id}")
    body = page.locator("#candidate-body").inner_text()
    edit_candidate(engine, written.candidate_id, body + "\n他长叹一声。", expected_revision=0)
    page.click("#accept-button")  # the page still offers it: it was rendered before the edit
    assert "不能采纳" in page.locator("h1").inner_text()
    assert "没有任何改动" in page.locator("#outcome").inner_text()
    shot(page, "09-stale-accept-refused")


def test_a_post_without_the_csrf_token_is_refused(server, page, written):
    page.goto(server.url + f"/candidates/{written.candidate_id}")
    status = page.evaluate(
        """async (url) => (await fetch(url, {method: 'POST',
            headers: {'Content-Type': 'application/x-www-form-urlencoded'},
            body: 'command_id=x'})).status""",
        server.url + f"/candidates/{written.candidate_id}/accept",
    )
    assert status == 403
    page.reload()
    assert page.locator("#accept-button").count() == 1  # still PASSED: nothing changed


def _outside_address() -> str | None:
    """This machine's address on its default route (a UDP connect sends no packet)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        try:
            s.connect(("10.254.254.254", 9))
            address = s.getsockname()[0]
        except OSError:
            return None
    return None if address.startswith("127.") else address


def test_a_non_loopback_request_is_refused(engine, written, page):
    address = _outside_address()
    if address is None:
        pytest.skip("this machine has no non-loopback IPv4 address to connect from")
    # Bound to an outside interface without a token: the Host passes, the client address does not.
    with LiveServer(create_app(engine, WebSecurity(host=address)), host=address) as live:
        response = page.goto(live.url + "/")
        assert response is not None and response.status == 403
        assert "只接受本机" in page.content()


BOOK = Path(__file__).resolve().parents[1] / "fixtures" / "books" / "webnovel_notes.txt"


@pytest.fixture
def demo_server(engine) -> Iterator[LiveServer]:
    """The database ``make demo`` leaves (muse.demo: 西游记 1–4 imported, cards, chapter 5
    written and accepted, the offline model chosen for every role), served."""
    from muse.demo.__main__ import play

    assert play(engine) is not None
    with LiveServer(create_app(engine, WebSecurity())) as live:
        yield live


@pytest.fixture
def gated_writer(scripted):
    """The offline writer, held until the test has looked at the live page mid-run."""
    release = threading.Event()

    def hold(draft):
        assert release.wait(120), "the test never released the writer"
        return draft

    scripted("writer", "generate").edit(hold)
    yield release
    release.set()


def test_a_new_user_walks_chapter_6_through_the_browser_on_the_demo_database(
    demo_server, page, gated_writer
):
    page.goto(demo_server.url + "/")
    assert page.locator("h1").first.inner_text() == "西游记（前四回）"
    assert "第 6 章还没有已确认的细纲" in page.locator("#write").inner_text()
    shot(page, "10-demo-overview")

    page.click("text=先去规划起草细纲")
    assert page.locator("#draft-chapter").input_value() == "6"
    shot(page, "11-plan-draft-form")
    page.click("#draft-button")
    page.wait_for_selector("#drafted")
    assert "第 6 章" in page.locator("#outline-view").inner_text()
    assert "孙悟空" in page.locator("#outline-view").inner_text()
    shot(page, "12-fine-outline-6-drafted")
    page.click(".confirm-section")
    assert "已确认" in page.locator("#outcome").inner_text()
    page.click("#to-write")
    assert "第 6 章还没有已确认的细纲" not in page.locator("#write").inner_text()

    page.click("#write-button")
    page.wait_for_url("**/writing/6**")
    # the node in progress, read from the stored run (the writer is held at its gate)
    page.wait_for_selector("#current-node:has-text('写作中')", timeout=120_000)
    assert page.locator("#timeline .badge.ok").count() >= 2  # finished nodes, from run_events
    shot(page, "13-writing-6-live")
    gated_writer.set()
    page.wait_for_url("**/candidates/**", timeout=120_000)  # the live page lands on it
    assert "第 6 章" in page.locator("h1").inner_text()
    shot(page, "14-candidate-6")
    page.click("#accept-button")
    assert "已成为正式正文" in page.locator("#outcome").inner_text()
    page.click("#to-chapter")
    assert "第 6 章" in page.locator("h1").inner_text()
    assert "当前正式正文" in page.content()
    assert len(page.locator("#chapter-text").inner_text()) > 2000
    shot(page, "15-canonical-chapter-6")
    # further down the long chapter: scrolled by script and waited for, so the shot is painted
    page.evaluate("window.scrollTo(0, 1600)")
    page.wait_for_function("window.scrollY >= 1500")
    page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
    shot(page, "16-canonical-chapter-6-reading")


def test_a_work_is_created_and_a_book_imported_in_the_browser(server, page):
    page.goto(server.url + "/works/new")
    shot(page, "17-new-work")
    page.set_input_files("#book-file", str(BOOK))
    page.wait_for_selector("text=已读取 webnovel_notes.txt")
    assert page.locator("#import-title").input_value() == "webnovel_notes"
    page.fill("#import-title", "青阳宗")
    page.click("#preview-button")  # a form post: wait for the new page, not the old one
    page.wait_for_selector("#preview-notes")
    assert "识别到 3 章" in page.content()
    assert "新书上传，求收藏求推荐" in page.locator("#preview-notes").inner_text()
    shot(page, "18-import-preview")
    page.click("#confirm-import-button")
    page.wait_for_selector("#imported")
    assert page.locator("h1").first.inner_text() == "青阳宗"
    shot(page, "19-imported-work")

    page.goto(server.url + "/works/new")
    page.fill("#create-title", "青云志")
    page.click("#create-button")
    page.wait_for_selector("h1:has-text('青云志')")
    assert "第 1 章还没有已确认的细纲" in page.locator("#write").inner_text()


def test_library_models_and_the_evaluation_zone_pages(server, page, written):
    page.goto(server.url + f"/works/{written.work_id}/library")
    assert "检索索引" in page.content()
    shot(page, "20-library")
    page.goto(server.url + f"/works/{written.work_id}/models")
    shot(page, "21-models")
    page.goto(server.url + "/evaluation")
    assert "评测区" in page.locator("h1").inner_text()
    page.goto(server.url + f"/works/{written.work_id}/chapters/4/edit")
    shot(page, "22-chapter-editor")


def test_a_plan_stage_is_edited_in_the_browser_and_a_stale_edit_keeps_the_text(
    server, page, engine, written
):
    from muse.planning import export_text, save_edited_text

    page.goto(server.url + f"/works/{written.work_id}/plan")
    page.click("#edit-stage-4")  # the next chapter (6) has no outline: a blank template
    page.goto(server.url + f"/works/{written.work_id}/plan/edit?stage=4&chapter=5")
    editor = page.locator("#plan-editor")
    text = editor.input_value()
    assert "target_chapter: 5" in text
    shot(page, "23-plan-editor")
    editor.fill(text.replace("target_chars:", "# 在浏览器里改过\ntarget_chars:", 1))
    page.click("#save-plan")
    page.wait_for_selector("#edited")
    assert "第 5 章" in page.locator("#outline-view").inner_text()

    page.goto(server.url + f"/works/{written.work_id}/plan/edit?stage=4&chapter=5")
    mine = page.locator("#plan-editor").input_value() + "\n# 我的第二次修改\n"
    page.locator("#plan-editor").fill(mine)
    with engine.begin() as conn:  # meanwhile, another window saves this outline
        other = export_text(conn, written.work_id, 4, chapter=5)
        save_edited_text(conn, written.work_id, 4, other + "\n# 另一个窗口\n", chapter=5)
    page.click("#save-plan")
    assert "在你打开编辑框之后有了变化" in page.locator("#outcome").inner_text()
    assert "# 我的第二次修改" in page.locator("#plan-editor").input_value()
    shot(page, "24-plan-edit-stale")


def test_a_batch_of_fine_outlines_is_drafted_in_the_browser(server, page, written):
    page.goto(server.url + f"/works/{written.work_id}/plan")
    page.fill("#batch-first", "6")
    page.fill("#batch-last", "8")
    page.click("#batch-button")
    page.wait_for_url("**/plan-batches/**")
    page.wait_for_selector("#batch-state:has-text('已完成')", timeout=120_000)
    assert page.locator("#batch-done").inner_text() == "3/3"
    assert page.locator("#batch-items a[href^='/plan-sections/']").count() == 3
    shot(page, "25-plan-batch")


def test_a_write_whose_server_died_is_shown_interrupted_and_ended_in_the_browser(
    engine, page, work_id, scripted
):
    from sqlalchemy import select, update

    from muse.flow.tables import runs
    from tests.support.processes import dead_owner

    reached, release = threading.Event(), threading.Event()

    def hold(draft):
        reached.set()
        assert release.wait(120), "the test never released the writer"
        return draft

    scripted("writer", "generate").edit(hold)
    try:
        with LiveServer(create_app(engine, WebSecurity())) as first:
            page.goto(first.url + f"/works/{work_id}")
            page.click("#write-button")
            page.wait_for_url("**/writing/5**")
            assert reached.wait(120), "the writer was never called"
            live_path = page.url.split(first.url, 1)[1]
        with engine.begin() as conn:  # the first server is gone; its process is dead
            run_id = conn.execute(select(runs.c.id)).scalar_one()
            conn.execute(update(runs).where(runs.c.id == run_id).values(owner=dead_owner()))
        with LiveServer(create_app(engine, WebSecurity())) as second:
            page.goto(second.url + live_path)
            page.wait_for_selector("#interrupted")
            assert "已中断" in page.locator("#interrupted").inner_text()
            shot(page, "26-write-interrupted")
            page.click("#sweep-button")
            assert run_id in page.locator("#outcome").inner_text()
            page.goto(second.url + f"/runs/{run_id}")
            assert page.locator("#interrupted").count() == 0
            assert "运行它的进程已结束" in page.content()
            shot(page, "27-run-after-sweep")
    finally:
        release.set()
