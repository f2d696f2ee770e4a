"""A whole-pipeline stub model for evaluation tests: every role answers over real HTTP.

The routing responder reads the role from the prompt's identity line and the frozen task input
from its JSON block, then answers: the writer and the detector with the offline generators (so
the candidate meets its outline, and a ``scripted(role, task)`` answers here too; see
``tests/support/fakes.py``), the judge from a script ``judge(arm, dimension, judge_index,
sample_key) -> score`` keyed by the arms behind the anonymous labels (which only the test
knows). Every request body is kept, so a test can search them for an oracle canary.
"""

from __future__ import annotations

import threading
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import yaml
from sqlalchemy import Engine, select

from muse.agents.providers.offline import generate_offline
from muse.context.output_contracts import WriterDraft
from muse.evaluation.contracts import DIMENSIONS
from muse.evaluation.preregistration import parse_set, preregister
from muse.evaluation.sample_state import zone_engine
from muse.evaluation.tables import eval_runs
from muse.quality.contracts import DetectorReport
from muse.works.canonical import add_chapter
from muse.works.catalog import create_work
from tests.support.fakes import chat_reply, offline_reply, prompt_text, task_input_of
from tests.support.marked_book import chapter_text
from tests.support.stub_server import Step, StubServer

CANARY = "金丝雀ORACLE-7f3e"
BOOKS = ("青云志", "山海录")
SECRET = "sk-stub-eval-2b9d"
JUDGE_MODEL = "deepseek-v4.1-flash"
WORKER_MODEL = "deepseek-chat"

JudgeScript = Callable[[str, str, int, str], float]


def book_text(n: int) -> str:
    """Chapter ``n`` of both marked books; chapters 6 onward carry the oracle canary."""
    text = chapter_text(n)
    return text + (f"\n{CANARY}第{n}章的底牌。" if n >= 6 else "")


def make_books(engine: Engine) -> dict[str, int]:
    """The two marked books (title → work id), chapters 1–8 each."""
    ids = {}
    with engine.begin() as conn:
        for title in BOOKS:
            work_id = create_work(conn, title, default_chapter_chars=2500)
            for n in range(1, 9):
                add_chapter(conn, work_id, n, f"第{n}章", book_text(n))
            ids[title] = work_id
    return ids


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
        text = prompt_text(body)
        if "你是「质量评委」" in text:
            return self._judge(body, task_input_of(body))
        if "你是「检测员」" in text:
            return offline_reply(body, "detector", "check", DetectorReport)
        task_input = task_input_of(body)
        data = generate_offline("writer", "generate", task_input, WriterDraft)
        if self.writer_edit is not None:
            data = self.writer_edit(data, task_input)
        return chat_reply(body, data, "writer")

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
        return chat_reply(body, data, "judge")


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


def register(engine, text: str, router: Router | None = None) -> str:
    """Preregister ``text``; teach ``router`` which arm and sample each anonymous label is."""
    registered = preregister(engine, parse_set(text))
    if router is not None:
        with zone_engine(engine).connect() as conn:
            for row in conn.execute(
                select(eval_runs).where(eval_runs.c.set_id == registered.set_id)
            ):
                for arm, label in row.labels.items():
                    router.label_arm[label] = arm
                    router.label_sample[label] = row.sample_key
    return registered.set_id
