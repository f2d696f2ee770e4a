"""``make demo``: the whole chapter cycle on a fresh SQLite file with the offline provider.

Imports the first four chapters of 西游记 (public domain) as a work, confirms a fine outline for
chapter 5, chooses the offline model for the work's roles (as ``muse models use`` does), writes
chapter 5 (plan → frozen context → offline writer → checks → shadow candidate), accepts it
(preflight → one-transaction canonical commit), runs the post-chapter extraction, and prints
what happened, where everything is stored, and commands to look at it — every one of them works
when pasted (tests/demo runs them).

It calls the library, not the CLI, and says so. Muse's unit is the chapter (章); the book's own
headings (第五回 …) are quoted as imported. The offline provider is deterministic: the same book,
cards, outline and model give the same chapter text, whatever the run ids and times.
"""

from __future__ import annotations

import os
import shlex
import sys
from importlib import resources
from pathlib import Path

import yaml
from rich.console import Console
from sqlalchemy import Engine, func, select

from muse import offline
from muse.agents import choose_model, recorded_choice
from muse.flow import accept_candidate, write_chapter
from muse.knowledge import discover_work, import_cards_yaml, load_cards
from muse.planning import confirm_section, save_fine_outline
from muse.store.engine import make_engine
from muse.store.migrate import load_all_tables, upgrade
from muse.worker import Worker
from muse.works import import_book, list_chapters

console = Console()
PROVIDER, MODEL = "offline", "offline-1"
ROLES = ("writer", "planner", "extractor", "detector")


def _data(name: str) -> bytes:
    return resources.files("muse.demo").joinpath(name).read_bytes()


def main(workspace: Path) -> int:
    offline.install()  # composition root: the offline provider's generators (muse.offline)
    workspace.mkdir(parents=True, exist_ok=True)
    db = workspace / "muse.db"
    for leftover in workspace.glob("muse.db*"):
        leftover.unlink()
    url = f"sqlite:///{db}"
    engine = make_engine(url)
    upgrade(engine)
    console.rule("[bold]Muse 演示：从导入到第 5 章入正式正文")
    console.print(f"数据库（全新 SQLite）：{db}")
    played = play(engine)
    if played is None:
        return 1
    run_id, candidate_id = played
    console.print("\n用命令行查看（可直接粘贴）：")
    for command in suggested_commands(url, run_id, candidate_id):
        console.print(f"  {command}", markup=False, highlight=False, soft_wrap=True)
    console.print(
        f"\n在浏览器里继续（起草第 6 章细纲、写、审、采纳）：{_prefix(url)} serve",
        markup=False,
        highlight=False,
        soft_wrap=True,
    )
    return 0


def play(engine: Engine) -> tuple[str, str] | None:
    """The demo's chapter cycle on a migrated, empty database: (run id, candidate id) of
    chapter 5, or None when the run did not reach a candidate (what happened is printed)."""
    report = import_book(
        engine, _data("xiyouji_1-4.txt"), title="西游记（前四回）", source_kind="public_domain"
    )
    console.print(
        f"① 导入：{len(report.chapters)} 章、{report.han_count} 个汉字，编码 {report.encoding}，"
        f"作品 ID {report.work_id}"
    )
    work_id = report.work_id
    assert work_id is not None
    with engine.begin() as conn:
        cards = import_cards_yaml(
            conn, work_id, _data("cards.yaml").decode("utf-8"), filename="cards.yaml", confirm=True
        )
        section_id = save_fine_outline(conn, work_id, yaml.safe_load(_data("fine_outline_5.yaml")))
        confirm_section(conn, section_id)
        card_count = len(load_cards(conn, work_id))
    console.print(
        f"② 设定：导入 {len(cards.outcomes)} 张卡片，作者确认后正式卡片 {card_count} 张；"
        f"第 5 章细纲已保存并确认（{section_id}）"
    )
    for role in ROLES:
        choice = choose_model(engine, work_id, role, f"{PROVIDER}:{MODEL}")
    console.print(
        f"   模型：本作品各角色选定 {PROVIDER}:{MODEL}（同 muse models use writer {PROVIDER}:{MODEL}）"
    )
    with engine.begin() as conn:
        found = discover_work(conn, work_id)
    console.print(
        f"   拆书发现（muse cards discover，无需模型）：{found.count('new')} 张机器提议的草稿，"
        f"{found.count('known')} 项已有正式卡片；草稿须作者确认（muse drafts）"
    )

    def progress(node: str, status: str) -> None:
        if status != "running":
            console.print(f"   · {node}: {status}")

    console.print("③ 写作第 5 章（与 muse write 5 相同，用作品选定的模型）：")
    with recorded_choice(choice):
        summary = write_chapter(
            engine, work_id, 5, provider=PROVIDER, model=MODEL, progress=progress
        )
    console.print(
        f"   运行 {summary.run_id} → {summary.state}；候选 {summary.candidate_id}，"
        f"{summary.han_count} 汉字，机械门发现 {len(summary.findings)} 个问题"
    )
    if summary.state != "shadow_ready":
        console.print(f"演示中止：{summary.reason}", style="red", markup=False)
        for f in summary.findings:
            console.print(f"   [{f['severity']}] {f['kind']}：{f['message']}", markup=False)
        return None
    console.print(
        f"   语义检测（{PROVIDER} 提供方）：{summary.semantic_status}；报告绑定候选哈希，"
        "引文与证据已过防造假校验。离线提供方只做确定性演示，真实判断需接入真实模型。"
    )

    assert summary.candidate_id is not None
    outcome = accept_candidate(engine, summary.candidate_id)
    console.print(f"④ 采纳：{outcome.message}")
    for job in Worker(engine).run_once():
        console.print(f"⑤ 章后抽取（muse worker --once）：{job.message}", highlight=False)
    with engine.connect() as conn:
        chapters = list_chapters(conn, work_id)
        counts = {
            t: conn.execute(select(func.count()).select_from(table)).scalar()
            for t, table in load_all_tables().tables.items()
        }
    latest = chapters[-1]
    console.print(
        f"   正式正文现有 {len(chapters)} 章；第 {latest.number} 章「{latest.title}」"
        f"修订版 {latest.revision}，{latest.han_count} 汉字，哈希 {latest.content_sha256[:12]}",
        markup=False,
    )
    console.rule("存放位置")
    for name in (
        "works",
        "chapters",
        "prose_blocks",
        "cards",
        "card_milestones",
        "source_refs",
        "plan_sections",
        "runs",
        "run_events",
        "context_snapshots",
        "candidates",
        "decisions",
        "jobs",
        "model_calls",
    ):
        if name in counts:
            console.print(f"  {name:<20} {counts[name]} 行")
    return summary.run_id, summary.candidate_id


def _prefix(url: str) -> str:
    """``MUSE_DATABASE_URL=… muse``, naming the installed ``muse`` so it runs without the venv on PATH."""
    muse = Path(sys.executable).with_name("muse")
    return f"MUSE_DATABASE_URL={shlex.quote(url)} {shlex.quote(str(muse)) if muse.exists() else 'muse'}"


def suggested_commands(url: str, run_id: str, candidate_id: str) -> list[str]:
    """What the demo suggests; each one runs as printed (from any directory)."""
    prefix = _prefix(url)
    return [
        f"{prefix} chapters",
        f"{prefix} chapter show 5",
        f"{prefix} card show 孙悟空 --as-of 3",
        f"{prefix} context build --chapter 5",
        f"{prefix} run show {run_id}",
        f"{prefix} candidate show {candidate_id}",
        f"{prefix} models use",
        f"{prefix} export",
    ]


if __name__ == "__main__":
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(os.getcwd()) / "demo-workspace"
    sys.exit(main(target))
