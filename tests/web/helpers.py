"""Small helpers for workbench tests: posting a form as the page does, waiting for a live task."""

from __future__ import annotations

import re
import time

from fastapi.testclient import TestClient

CLASH_YAML = (
    "卡片:\n  - 类型: 人物\n    名称: 孙悟空\n    字段:\n      简介: 花果山仙石所生的石猴，拜师学道，大闹天宫。\n"
    "      身份: 弼马温\n      性格: 心高气傲，不服拘管。\n"
    "  - 类型: 人物\n    名称: 混世魔王\n    字段:\n      简介: 占了水脏洞的妖魔。\n      身份: 水脏洞妖王\n      性格: 凶横。\n"
)


def post(client: TestClient, url: str, csrf: str, **fields) -> object:
    data = {"csrf_token": csrf, **fields}
    return client.post(url, data=data, follow_redirects=False)


def command_id(html: str, action: str) -> str:
    found = re.search(r'name="command_id" value="([^"]+-' + action + ')"', html)
    assert found, f"no {action} form on the page"
    return found.group(1)


def finish_task(client: TestClient, location: str, rounds: int = 600) -> tuple[str | None, str]:
    """Poll a live task's fragment the way htmx does until the task ends: the URL it lands on
    (None when it ends without one, e.g. a refused edit) and the last fragment.

    The bound is a number of polls, not a time: the test waits for the task, never for a clock."""
    path, _, query = location.partition("?")
    for _ in range(rounds):
        r = client.get(f"{path}/progress" + (f"?{query}" if query else ""))
        assert r.status_code in (200, 286), r.text
        if "HX-Redirect" in r.headers:
            return r.headers["HX-Redirect"], r.text
        if r.status_code == 286:
            return None, r.text
        time.sleep(0.05)
    raise AssertionError("the background task never ended")


def wait_for_task(client: TestClient, location: str) -> str:
    landing, text = finish_task(client, location)
    assert landing is not None, f"the task ended without a page to land on: {text}"
    return landing
