"""A whole-pipeline stub model for evaluation tests: every role answers over real HTTP.

The routing responder reads the role from the prompt's identity line and the frozen task input
from its JSON block, then answers: the writer and the detector with the offline generators (so
the candidate meets its outline), the judge from a script ``judge(arm, dimension, judge_index,
sample_key) -> score`` keyed by the arms behind the anonymous labels (which only the test
knows). Every request body is kept, so a test can search them for an oracle canary.
"""

from __future__ import annotations

import json
import re
import threading
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import yaml

from muse.agents.providers.offline import generate_offline
from muse.context.output_contracts import WriterDraft
from muse.evaluation.contracts import DIMENSIONS
from muse.quality.contracts import DetectorReport
from tests.agents.stub_server import Step, StubServer

JUDGE_MODEL = "deepseek-v4.1-flash"
WORKER_MODEL = "deepseek-chat"
_INPUT = re.compile(r"冻结任务输入\s*```json\n(.*?)\n```", re.S)

JudgeScript = Callable[[str, str, int, str], float]


def flat(score: float) -> JudgeScript:
    return lambda arm, dim, index, sample: score


@dataclass
class Router:
    judge: JudgeScript = field(default_factory=lambda: flat(3.5))
    label_arm: dict[str, str] = field(default_factory=dict)  # anonymous label → arm
    label_sample: dict[str, str] = field(default_factory=dict)  # label → sampleId
    writer_edit: Callable[[dict, dict], dict] | None = None  # (draft, task input) → draft
    fail_judge_of: set[str] = field(default_factory=set)  # sampleIds whose judges answer 500
    calls: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    lock: threading.Lock = field(default_factory=threading.Lock)

    def __call__(self, body: dict[str, Any]) -> Step:
        text = "\n".join(str(m.get("content") or "") for m in body["messages"])
        found = _INPUT.search(text)
        assert found, "the prompt carries its frozen task input"
        task_input = json.loads(found.group(1))
        if "你是「质量评委」" in text:
            return self._judge(body, task_input)
        if "你是「检测员」" in text:
            data = generate_offline("detector", "check", task_input, DetectorReport)
            return _reply(body, data, "detector")
        data = generate_offline("writer", "generate", task_input, WriterDraft)
        if self.writer_edit is not None:
            data = self.writer_edit(data, task_input)
        return _reply(body, data, "writer")

    def _judge(self, body: dict, task_input: dict) -> Step:
        labels = [c["candidateLabel"] for c in task_input["candidates"]]
        sample = self.label_sample.get(labels[0], "?")
        with self.lock:
            self.calls[sample] += 1
            index = self.calls[sample]
        if sample in self.fail_judge_of:
            return Step(500, b'{"error": {"message": "stub judge down", "type": "server"}}')
        data = {
            "candidates": [
                {
                    "candidateLabel": label,
                    "dimensions": {
                        dim: {
                            "score": self.judge(self.label_arm[label], dim, index, sample),
                            "reason": "桩评委",
                            "quotes": [],
                        }
                        for dim in DIMENSIONS
                    },
                }
                for label in labels
            ]
        }
        return _reply(body, data, "judge")


def _reply(body: dict, data: dict, role: str) -> Step:
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


SCENES = ("battle", "dialogue", "emotion", "transition", "reveal")


def outline(chapter: int) -> dict:
    return {
        "title": f"第{chapter}章",
        "hard_constraints": {
            "hard_events": [{"id": "H1", "text": "林远与苏晴在山门前分别"}],
            "result_direction": {"id": "R1", "text": "林远独自上山"},
            "foreshadowing": [
                {"id": "F1", "action": "推", "thread": "玉佩", "text": "玉佩微微发热"}
            ],
            "chapter_end_hook": {"id": "K1", "text": "山门后传来一声钟响"},
            "required_entities": [{"id": "E1", "name": "林远"}, {"id": "E2", "name": "苏晴"}],
        },
    }


def set_yaml(
    version: str,
    books: dict[str, int],
    *,
    target: int = 6,
    judge_provider: str = "stub",
    worker_provider: str = "stub",
    max_tokens: int = 20000,
) -> str:
    """An evaluation set: ``books`` maps a work title to its number of samples (scenes cycle)."""
    samples = []
    for book_index, (title, count) in enumerate(books.items(), start=1):
        for i in range(count):
            samples.append(
                {
                    "sampleId": f"b{book_index}s{i + 1:02d}",
                    "work": title,
                    "targetChapter": target,
                    "sceneClass": SCENES[i % len(SCENES)],
                    "fineOutline": outline(target),
                }
            )
    worker_model = "offline-1" if worker_provider == "offline" else WORKER_MODEL
    judge_model = "offline-1" if judge_provider == "offline" else JUDGE_MODEL
    doc = {
        "evaluationSetVersion": version,
        "models": {
            "writer": {"provider": worker_provider, "model": worker_model},
            "detector": {"provider": worker_provider, "model": worker_model},
            "judge": {"provider": judge_provider, "model": judge_model},
        },
        "maxGenerationBudget": {"maxOutputTokens": max_tokens},
        "samples": samples,
    }
    return yaml.safe_dump(doc, allow_unicode=True, sort_keys=False)


def start_router(stub: StubServer) -> Router:
    router = Router()
    stub.responder = router
    return router
