"""``muse candidate facts``: the fact deltas of a shadow candidate, proposed before the accept.

With ``--propose`` the extractor reads the candidate's body and its facts are stored as proposals
of this candidate (quotes checked verbatim against the body; a forged one is refused and shown).
They enter the fact ledger only when the author names them at ``muse accept --approve-fact``.
"""

from __future__ import annotations

import typer

from muse.agents import recorded_choice, resolve_model
from muse.cli.common import get_engine
from muse.cli.options import JsonOption
from muse.cli.output import console, emit, escape, fail, print_table
from muse.core.errors import MuseError
from muse.flow import CandidateFacts, list_candidate_facts, propose_candidate_facts
from muse.flow import load as load_candidate
from muse.knowledge import FACT_TYPE_LABELS
from muse.store.engine import reading

STATUS_LABELS = {"proposed": "待批准", "approved": "已入账", "rejected": "已驳回"}
ITEM_LABELS = {"proposed": "已提出", "duplicate": "重复（已有）", "rejected": "拒收"}


def candidate_facts(
    candidate_id: str = typer.Argument(..., help="候选 ID"),
    propose: bool = typer.Option(False, "--propose", help="先让抽取模型读候选正文，提出事实增量"),
    provider: str = typer.Option(
        None,
        "--provider",
        "-p",
        help="抽取模型提供方（--propose 时；省略则用作品选定的 extractor 模型）",
    ),
    model: str = typer.Option(None, "--model", "-m", help="抽取模型 ID（与 --provider 同时给出）"),
    json_out: bool = JsonOption,
) -> None:
    """列出针对候选提出的事实增量；--propose 先从候选正文抽取（只在采纳时经你批准才入台账）。"""
    try:
        if propose:
            with reading(get_engine()) as conn:
                work_id = load_candidate(conn, candidate_id)[0].work_id
            # the flags, else the work's `muse models use extractor …` choice
            choice = resolve_model(get_engine(), work_id, "extractor", provider, model)
            with recorded_choice(choice):
                facts = propose_candidate_facts(
                    get_engine(), candidate_id, provider=choice.provider, model=choice.model
                )
        else:
            with reading(get_engine()) as conn:
                facts = list_candidate_facts(conn, candidate_id)
    except MuseError as err:
        fail(err)
    emit(facts.to_dict(), json_out, lambda _: _render(facts))


def _render(facts: CandidateFacts) -> None:
    for item in facts.items:
        color = {"proposed": "green", "duplicate": "dim", "rejected": "red"}[item.status]
        reason = f"：{item.reason}" if item.reason else ""
        console.print(
            f"[{color}]{ITEM_LABELS[item.status]}[/] {escape(item.name)}"
            f"（{escape(item.detail)}）{escape(reason)}",
            highlight=False,
        )
    for finding in facts.findings:
        console.print(f"[yellow]{escape(finding)}[/]", highlight=False)
    rows = [
        (
            d.id,
            FACT_TYPE_LABELS[d.type],
            d.subject,
            "；".join(str(v) for v in d.payload.values() if v),
            d.evidence_quote,
            STATUS_LABELS.get(d.status, d.status),
        )
        for d in facts.deltas
    ]
    print_table(
        f"候选 {facts.candidate_id}（第 {facts.chapter} 章）的事实增量（{len(rows)}）",
        "ID 类型 主体 内容 引文 状态",
        rows,
    )
    if any(d.status == "proposed" for d in facts.deltas):
        console.print(
            f"采纳时批准：muse accept {facts.candidate_id} --approve-fact ID"
            "（可重复）或 --approve-all-facts",
            highlight=False,
        )


def register(candidate_app: typer.Typer) -> None:
    candidate_app.command("facts")(candidate_facts)
