"""Evaluation benchmark: a 10-sample dry run over the two corpus novels (offline provider).

    .venv/bin/python bench/eval_run.py [--concurrency K]

Imports 西游记 and 三国演义 from ../shared/corpus (benchmarks may read it; tests never do),
preregisters an evaluation set of 5 chapters per book (chapters 6–10, as_of = N − 1) across the
five scene classes with hand-written fine outlines, runs all three arms, the detector and the
blind judges with the offline model, and prints the wall time, the calls, and the author's
report. The offline judge makes this a dry run: the Gate verdicts can only be
insufficient_evidence.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import yaml

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


def evaluation_set(version: str) -> str:
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
        },
        "maxGenerationBudget": {"maxOutputTokens": 16000},
        "samples": samples,
    }
    return yaml.safe_dump(doc, allow_unicode=True, sort_keys=False)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--concurrency", type=int, default=2)
    args = parser.parse_args()
    if not CORPUS.is_dir():
        sys.exit(f"shared corpus not found at {CORPUS}")
    engine = make_engine(f"sqlite:///{tempfile.mkdtemp()}/eval.db")
    upgrade(engine)
    started = time.perf_counter()
    for title, name in (("西游记", "xiyouji.txt"), ("三国演义", "sanguoyanyi.txt")):
        import_book(engine, (CORPUS / name).read_bytes(), title=title, source_kind="public_domain")
    imported = time.perf_counter() - started
    registered = preregister(engine, parse_set(evaluation_set("corpus-dry-1")))
    est = estimate(engine, registered.set_id)
    started = time.perf_counter()
    result = run_set(engine, registered.set_id, concurrency=args.concurrency)
    wall = time.perf_counter() - started
    report = build_report(engine, registered.set_id)
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
