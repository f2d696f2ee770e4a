"""The fake model, scripted per test: ``scripted(role, task)``, and the shared chapter writes.

The fake model is the offline provider (``muse.offline``'s deterministic generators). A test that
needs another answer for one (role, task) scripts it through the provider's registry, either
replacing the answer or editing the built-in one:

    scripted("detector", "check").reply(lambda task_input: {...})   # answer from the script
    scripted("writer", "generate").edit(lambda draft: {...})        # change the built-in answer

(``scripted`` is the root conftest's fixture over :class:`Scripts`; every script is removed when
the test ends.) The stub HTTP server answers through the same registry when its responder routes
by role (:func:`offline_reply`, used by ``tests/evaluation/harness.py``), so one script answers a
request over real sockets exactly as it answers an in-process offline call.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel
from sqlalchemy import Engine

from muse.agents.providers.offline import (
    generate_offline,
    register_offline_generator,
    unregister_offline_generator,
)
from muse.flow.production import RunSummary, write_chapter
from tests.support.stub_server import Step

Data = dict[str, Any]
Reply = Callable[[Data], Data | None]
Edit = Callable[[Data], Data]


class Script:
    """How the fake model answers one (role, task) in one test.

    ``reply`` replaces the answer; ``edit`` changes the built-in answer (edits apply in the order
    given); with neither, the built-in generators answer. ``seen`` is every task input answered.
    """

    def __init__(self, role: str, task: str) -> None:
        self.role, self.task = role, task
        self.seen: list[Data] = []
        self._reply: Reply | None = None
        self._edits: list[Edit] = []
        self._asking_builtin = threading.local()

    def reply(self, answer: Reply) -> list[Data]:
        """Answer every call with ``answer(task_input)``; returns the list of inputs seen."""
        self._reply = answer
        return self.seen

    def edit(self, change: Edit) -> None:
        """Change the built-in answer with ``change(data) -> data``."""
        self._edits.append(change)

    def __call__(self, task_input: Data, output_model: type[BaseModel]) -> Data | None:
        if getattr(self._asking_builtin, "active", False):
            return None  # declined: the built-in generators answer (the base of the edits)
        self.seen.append(task_input)
        if self._reply is not None:
            return self._reply(task_input)
        if not self._edits:
            return None
        self._asking_builtin.active = True
        try:
            data = generate_offline(self.role, self.task, task_input, output_model)
        finally:
            self._asking_builtin.active = False
        for change in self._edits:
            data = change(data)
        return data


class Scripts:
    """The scripts of one test, one per (role, task); :meth:`close` removes them all."""

    def __init__(self) -> None:
        self._scripts: dict[tuple[str, str], Script] = {}

    def __call__(self, role: str, task: str) -> Script:
        key = (role, task)
        if key not in self._scripts:
            self._scripts[key] = Script(role, task)
            register_offline_generator(role, task, self._scripts[key])
        return self._scripts[key]

    def close(self) -> None:
        for role, task in self._scripts:
            unregister_offline_generator(role, task)
        self._scripts.clear()


# -- the stub server: answers by role through the same registry ----------------------------------

_TASK_INPUT = re.compile(r"冻结任务输入\s*```json\n(.*?)\n```", re.S)


def prompt_text(body: Data) -> str:
    """Every message of a chat-completions request body, as one text."""
    return "\n".join(str(m.get("content") or "") for m in body["messages"])


def task_input_of(body: Data) -> Data:
    """The frozen task input a Muse prompt carries in its JSON block."""
    found = _TASK_INPUT.search(prompt_text(body))
    assert found, "the prompt carries its frozen task input"
    data: Data = json.loads(found.group(1))
    return data


def chat_reply(body: Data, data: Data, role: str) -> Step:
    """A chat-completions reply to ``body`` whose content is ``data`` as JSON."""
    content = json.dumps(data, ensure_ascii=False)
    reply = {
        "id": f"chatcmpl-{role}",
        "object": "chat.completion",
        "created": 1,
        "model": body["model"],
        "usage": {"prompt_tokens": 1000, "completion_tokens": 500, "total_tokens": 1500},
        "choices": [
            {
                "index": 0,
                "finish_reason": "stop",
                "message": {"role": "assistant", "content": content},
            }
        ],
    }
    return Step(200, json.dumps(reply, ensure_ascii=False).encode())


def offline_reply(body: Data, role: str, task: str, output_model: type[BaseModel]) -> Step:
    """Answer a stub request for (role, task) as the fake model does (scripts included)."""
    return chat_reply(body, generate_offline(role, task, task_input_of(body), output_model), role)


# -- the shared chapter write ---------------------------------------------------------------------


def write_offline(engine: Engine, work_id: int, chapter: int, **options: Any) -> RunSummary:
    """Write ``chapter`` with the offline model (``options``: write_chapter's keywords)."""
    return write_chapter(engine, work_id, chapter, provider="offline", model="offline-1", **options)


def write_ready(engine: Engine, work_id: int, chapter: int) -> RunSummary:
    """Write ``chapter`` offline and require a candidate waiting for the author."""
    summary = write_offline(engine, work_id, chapter)
    assert summary.state == "shadow_ready", summary
    return summary
