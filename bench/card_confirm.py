"""Benchmark: importing a cards file with ``--confirm`` (issue 18: it was quadratic).

    .venv/bin/python bench/card_confirm.py [--sizes 90,180,360]

For each size N, a fresh SQLite database holds a small synthetic book (one chapter per 30
people, each person named in its chapter) and a cards YAML file of N person cards with aliases
and a 登场 milestone quoting its chapter; ``import_cards_yaml(confirm=True)`` submits and confirms
them in one transaction. It prints CPU seconds per phase and per card: a linear path keeps the
per-card figure flat as N doubles (before the fix every confirmation reloaded all confirmed
cards, so the per-card time grew with N: 361 cards took about 160 s).
"""

from __future__ import annotations

import argparse
import tempfile
import time

from muse.knowledge import card_import
from muse.knowledge.card_import import import_cards_yaml
from muse.store.engine import make_engine
from muse.store.migrate import upgrade
from muse.works.canonical import add_chapter
from muse.works.catalog import create_work

SURNAMES = "赵钱孙李周吴郑王冯陈褚卫蒋沈韩杨朱秦尤许何吕施张孔曹严华金魏陶姜"
GIVEN = "青云远山明月清风长河落日孤烟白露寒霜秋水春雷"
PER_CHAPTER = 30


def names(n: int) -> list[str]:
    out = []
    for s in SURNAMES:
        for a in GIVEN:
            for b in GIVEN:
                if a != b:
                    out.append(s + a + b)
                if len(out) == n:
                    return out
    raise ValueError(n)


def book(people: list[str]) -> dict[int, str]:
    chapters: dict[int, str] = {}
    for i in range(0, len(people), PER_CHAPTER):
        lines = [
            f"{p}走进城来，向众人拱手道：“在下{p}，初到贵地。”" for p in people[i : i + PER_CHAPTER]
        ]
        chapters[i // PER_CHAPTER + 1] = "\n".join(lines)
    return chapters


def cards_yaml(people: list[str]) -> str:
    lines = ["格式: muse-cards-v1", "卡片:"]
    for i, p in enumerate(people):
        chapter = i // PER_CHAPTER + 1
        lines += [
            "  - 类型: 人物",
            f"    名称: {p}",
            f"    别名: [{p[1:]}]",
            "    字段: {简介: 书中人物。, 身份: 行客, 性格: 沉稳}",
            "    演变历程:",
            f"      - {{章: {chapter}, 周期: 登场, 台阶: 登场, "
            f'出处: [{{章: {chapter}, 引文: "在下{p}"}}]}}',
        ]
    return "\n".join(lines) + "\n"


def run(n: int) -> tuple[float, float, float]:
    engine = make_engine(f"sqlite:///{tempfile.mkdtemp()}/cards.db")
    upgrade(engine)
    people = names(n)
    with engine.begin() as conn:
        work_id = create_work(conn, "名册")
        for number, text in book(people).items():
            add_chapter(conn, work_id, number, f"第{number}章", text)
    confirm_s = 0.0
    real_confirm = card_import.confirm_draft

    def timed_confirm(*args, **kwargs):  # type: ignore[no-untyped-def]
        nonlocal confirm_s
        started = time.process_time()
        try:
            return real_confirm(*args, **kwargs)
        finally:
            confirm_s += time.process_time() - started

    card_import.confirm_draft = timed_confirm
    try:
        started = time.process_time()
        with engine.begin() as conn:
            report = import_cards_yaml(conn, work_id, cards_yaml(people), confirm=True)
        total = time.process_time() - started
    finally:
        card_import.confirm_draft = real_confirm
    assert report.count("confirmed") == n, report.count("confirmed")
    engine.dispose()
    return total, confirm_s, total - confirm_s


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="90,180,360")
    args = parser.parse_args()
    print(f"{'cards':>6} {'import s':>9} {'confirm s':>10} {'confirm ms/card':>16} {'rest s':>7}")
    for n in (int(s) for s in args.sizes.split(",")):
        total, confirm_s, rest = run(n)
        print(f"{n:>6} {total:>9.1f} {confirm_s:>10.1f} {1000 * confirm_s / n:>16.1f} {rest:>7.1f}")


if __name__ == "__main__":
    main()
