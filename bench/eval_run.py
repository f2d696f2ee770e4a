"""Evaluation benchmark: 10 samples over the two corpus novels, offline or over a local stub.

    .venv/bin/python bench/eval_run.py [--concurrency K] [--stub]

Imports 西游记 and 三国演义 from ../shared/corpus (benchmarks may read it; tests never do),
preregisters an evaluation set of 5 chapters per book (chapters 6–10, as_of = N − 1) across the
five scene classes with hand-written fine outlines, runs all three arms, the detector and the
blind judges with the offline model, and prints the wall time, the calls, and the author's
report. The offline judge makes this a dry run: the Gate verdicts can only be
insufficient_evidence.

``--stub``: every role is called over real HTTP on a local stub of the OpenAI chat API (the
test harness's routing stub, ``tests/evaluation/harness.py``): the writer and the detector
answer with the offline generators, the judges from a fixed script (C +0.5 on 设定与实体保真,
judge 2 +0.5 on 文笔质量). The judge model is on the judge-fixed whitelist, so the gates decide
— on scripted scores, which say nothing about quality; the point is the wall time and calls of a
whole evaluation over HTTP.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

import yaml

from muse import offline
from muse.cli.evaluation import _render_report
from muse.evaluation.preregistration import parse_set, preregister
from muse.evaluation.report import build_report
from muse.evaluation.runner import estimate, run_set
from muse.store.engine import make_engine
from muse.store.migrate import upgrade
from muse.works.importer import import_book

CORPUS = Path(__file__).resolve().parent.parent.parent / "shared" / "corpus"


def _outline(events: list[str], result: str, hook: str, names: list[str]) -> dict:
    return {
        "title": events[0][:12],
        "hard_constraints": {
            "hard_events": [{"id": f"H{i}", "text": t} for i, t in enumerate(events, 1)],
            "result_direction": {"id": "R1", "text": result},
            "chapter_end_hook": {"id": "K1", "text": hook},
            "required_entities": [{"id": f"E{i}", "name": n} for i, n in enumerate(names, 1)],
            "foreshadowing_note": "本章不动伏笔。",
        },
    }


XIYOUJI = [
    (
        6,
        "battle",
        ["二郎神奉旨领兵围住花果山", "大圣与二郎神斗法变化"],
        "大圣被擒",
        "太上老君的金刚琢落下",
        ["孙悟空", "太上老君"],
    ),
    (
        7,
        "reveal",
        ["大圣自八卦炉中逃出", "如来与大圣赌赛翻掌"],
        "大圣被压五行山下",
        "如来留下六字真言帖子",
        ["孙悟空", "二郎神"],
    ),
    (
        8,
        "transition",
        ["如来在灵山讲经，欲传真经东土", "观音奉旨寻取经人"],
        "观音启程往长安",
        "观音一路点化将来的徒弟",
        ["观音", "如来"],
    ),
    (
        9,
        "emotion",
        ["陈光蕊赴任途中遭害", "殷小姐忍辱产子"],
        "婴儿随江漂流",
        "金山寺长老拾得江流儿",
        ["陈光蕊", "殷小姐"],
    ),
    (
        10,
        "dialogue",
        ["泾河龙王与袁守诚赌雨", "龙王私改雨数"],
        "龙王犯了天条",
        "龙王夜求唐太宗救命",
        ["泾河龙王", "袁守诚"],
    ),
]
SANGUO = [
    (
        6,
        "reveal",
        ["董卓焚烧洛阳迁都长安", "孙坚在井中得传国玉玺"],
        "孙坚藏玺背约",
        "袁绍索玺，孙坚拔剑相向",
        ["董卓", "孙坚"],
    ),
    (
        7,
        "battle",
        ["袁绍与公孙瓒战于磐河", "赵云救下公孙瓒"],
        "孙坚跨江攻打刘表",
        "孙坚于岘山中伏",
        ["袁绍", "孙坚"],
    ),
    (
        8,
        "dialogue",
        ["王允以貂蝉设连环计", "吕布与董卓因貂蝉生隙"],
        "吕布怀恨董卓",
        "董卓于凤仪亭掷戟刺吕布",
        ["王允", "吕布"],
    ),
    (
        9,
        "emotion",
        ["吕布受王允之劝诛杀董卓", "蔡邕哭董卓被下狱"],
        "李傕郭汜听贾诩之计反攻长安",
        "王允坠楼殉国",
        ["吕布", "王允"],
    ),
    (
        10,
        "transition",
        ["马腾韩遂起兵勤王失利", "曹操在兖州招贤纳士"],
        "曹操之父曹嵩遇害",
        "曹操起兵报父仇",
        ["曹操", "李傕"],
    ),
]


def evaluation_set(version: str, stub: bool = False) -> str:
    samples = []
    for work, key, rows in (("西游记", "xyj", XIYOUJI), ("三国演义", "sgy", SANGUO)):
        for chapter, scene, events, result, hook, names in rows:
            samples.append(
                {
                    "sampleId": f"{key}{chapter:02d}",
                    "work": work,
                    "targetChapter": chapter,
                    "sceneClass": scene,
                    "fineOutline": _outline(events, result, hook, names),
                }
            )
    doc = {
        "evaluationSetVersion": version,
        "models": {
            r: {"provider": "offline", "model": "offline-1"}
            for r in ("writer", "detector", "judge")
        }
        if not stub
        else {
            "writer": {"provider": "stub", "model": "deepseek-chat"},
            "detector": {"provider": "stub", "model": "deepseek-chat"},
            "judge": {"provider": "stub", "model": "deepseek-v4.1-flash"},
        },
        "maxGenerationBudget": {"maxOutputTokens": 16000},
        "samples": samples,
    }
    return yaml.safe_dump(doc, allow_unicode=True, sort_keys=False)


def _scripted_judge(arm: str, dim: str, index: int, sample: str) -> float:
    score = 3.5
    if arm == "C" and dim == "settingFidelity":
        score += 0.5
    if index == 2 and dim == "proseQuality":
        score += 0.5
    return score


def _start_stub(workdir: Path):  # type: ignore[no-untyped-def]
    """The local stub server and its routing responder; MUSE_CONFIG points provider "stub" at it."""
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from tests.agents.stub_server import StubServer
    from tests.evaluation.harness import start_router

    server = StubServer().start()
    config = workdir / "config.toml"
    config.write_text(
        f'[providers.stub]\nbase_url = "{server.url}"\napi_key_env = "STUB_API_KEY"\n'
        "supports_json_schema = true\nsupports_tools = false\n",
        encoding="utf-8",
    )
    os.environ["MUSE_CONFIG"] = str(config)
    os.environ["STUB_API_KEY"] = "sk-bench-stub"
    router = start_router(server)
    router.judge = _scripted_judge
    return server, router


def _teach(engine, router, set_id: str) -> None:  # type: ignore[no-untyped-def]
    from sqlalchemy import select

    from muse.evaluation.sample_state import zone_engine
    from muse.evaluation.tables import eval_runs

    with zone_engine(engine).connect() as conn:
        for row in conn.execute(select(eval_runs).where(eval_runs.c.set_id == set_id)):
            for arm, label in row.labels.items():
                router.label_arm[label] = arm
                router.label_sample[label] = row.sample_key


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--concurrency", type=int, default=2)
    parser.add_argument("--stub", action="store_true", help="all roles over a local HTTP stub")
    args = parser.parse_args()
    if not CORPUS.is_dir():
        sys.exit(f"shared corpus not found at {CORPUS}")
    offline.install()
    workdir = Path(tempfile.mkdtemp())
    server = router = None
    if args.stub:
        server, router = _start_stub(workdir)
    engine = make_engine(f"sqlite:///{workdir}/eval.db")
    upgrade(engine)
    started = time.perf_counter()
    for title, name in (("西游记", "xiyouji.txt"), ("三国演义", "sanguoyanyi.txt")):
        import_book(engine, (CORPUS / name).read_bytes(), title=title, source_kind="public_domain")
    imported = time.perf_counter() - started
    version = "corpus-stub-1" if args.stub else "corpus-dry-1"
    registered = preregister(engine, parse_set(evaluation_set(version, stub=args.stub)))
    if router is not None:
        _teach(engine, router, registered.set_id)
    est = estimate(engine, registered.set_id)
    started = time.perf_counter()
    result = run_set(engine, registered.set_id, concurrency=args.concurrency)
    wall = time.perf_counter() - started
    report = build_report(engine, registered.set_id)
    if server is not None:
        print(f"stub server: {len(server.requests)} HTTP requests received")
        server.stop()
    print(f"import of two books: {imported:.1f} s")
    print(f"estimate: {est.calls} calls (max {est.max_calls}) for {est.samples} samples")
    print(
        f"evaluation of {len(result.states)} samples, concurrency {args.concurrency}: "
        f"{wall:.1f} s wall, {report['totals']['calls']} calls, "
        f"{report['totals']['inputTokens']} input / {report['totals']['outputTokens']} output tokens"
    )
    print(f"per sample: {wall / len(result.states):.2f} s")
    print()
    _render_report(report)


if __name__ == "__main__":
    main()
