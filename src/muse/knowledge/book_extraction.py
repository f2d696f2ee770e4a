"""拆书 with a model: the extractor over a whole imported book, one chapter a batch, on the queue.

``muse cards extract --chapters A-B -p P -m M`` plans one batch per chapter and queues it as a
``book_extract_batch`` job (store/jobs.py), so any number of workers can share the book. A batch
is the post-chapter extraction of that chapter (extraction.py: the same contract, the same
verification) with two additions:

* **hints**: the entities discovery proposed (discovery_drafts.py) that the chapter names and that
  have appeared by then — never one whose first occurrence is later (principle 4, the as-of rule);
* **one name per entity**: a name the extractor uses that is an alias of a card, or of a
  discovered entity, is rewritten to that entity's name before the drafts are stored, so the
  proposals of all batches about one entity land on one card. Confirming them one after another
  merges what adds and queues what contradicts (drafts.py), never overwriting.

Every fact stays anchored in its own chapter: a quote not found verbatim there is refused.

Idempotent and resumable: a batch is keyed by (work, chapter, revision, provider, model); a
batch whose job is done (its result stored with the job, its model call in the receipts) is
never queued again, so a killed run resumes where it stopped without re-calling the model.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from sqlalchemy import Connection, select

from muse.core.errors import InvalidInput, MuseError
from muse.core.text import count_han
from muse.knowledge.extraction import extraction_input
from muse.knowledge.extraction_contracts import ChapterExtraction
from muse.knowledge.tables import card_drafts, card_milestones, cards
from muse.store.jobs import enqueue, job_statuses
from muse.works import chapter_revisions, get_chapter_text

BATCH_JOB = "book_extract_batch"
# a rough size of the extractor's prompt around its input (role contract, task, schema), and of
# the reply per input token: used only for the --dry-run estimate, which says it is an estimate
PROMPT_OVERHEAD_TOKENS = 2500
REPLY_SHARE = Decimal("0.15")


@dataclass(frozen=True)
class Batch:
    chapter: int
    revision: int
    status: str  # todo | queued | done

    def key(self, work_id: int, provider: str, model: str) -> str:
        return f"book-extract:{work_id}:{self.chapter}:{self.revision}:{provider}:{model}"


def plan_batches(
    conn: Connection, work_id: int, span: tuple[int, int] | None, provider: str, model: str
) -> list[Batch]:
    """One batch per canonical chapter in ``span``, with the state of its job if any."""
    revisions = chapter_revisions(conn, work_id)
    numbers = [n for n in sorted(revisions) if span is None or span[0] <= n <= span[1]]
    if not numbers:
        where = f"第 {span[0]}–{span[1]} 章" if span else "作品"
        raise InvalidInput(f"{where}没有正文章节，无从抽取。", hint="先用 muse import 导入书稿。")
    keys = {Batch(n, revisions[n], "todo").key(work_id, provider, model): n for n in numbers}
    states = job_statuses(conn, list(keys))
    out = []
    for key, n in keys.items():
        state = states.get(key)
        status = "done" if state == "done" else "queued" if state else "todo"
        out.append(Batch(n, revisions[n], status))
    return out


def enqueue_batches(
    conn: Connection, work_id: int, batches: list[Batch], provider: str, model: str
) -> list[str]:
    """Queue every batch not done yet (at most one job per batch key); returns the job ids."""
    return [
        enqueue(
            conn,
            BATCH_JOB,
            {
                "workId": work_id,
                "chapter": b.chapter,
                "revision": b.revision,
                "provider": provider,
                "model": model,
            },
            work_id=work_id,
            dedupe_key=b.key(work_id, provider, model),
        )
        for b in batches
        if b.status != "done"
    ]


# --- hints and names ---------------------------------------------------------------------------


@dataclass(frozen=True)
class KnownEntity:
    name: str
    type: str
    aliases: tuple[str, ...]
    first_chapter: int | None  # None: known from the start (a confirmed card without a debut)


def known_entities(conn: Connection, work_id: int) -> list[KnownEntity]:
    """Confirmed cards and pending discovery drafts, with their names and debut chapters."""
    debut = (
        select(card_milestones.c.card_id, card_milestones.c.chapter)
        .where(card_milestones.c.cycle == "登场")
        .subquery()
    )
    discovered = select(card_drafts.c.card_id).where(
        card_drafts.c.work_id == work_id, card_drafts.c.status == "pending"
    )
    rows = conn.execute(
        select(
            cards.c.id, cards.c.name, cards.c.type, cards.c.aliases, cards.c.status, debut.c.chapter
        )
        .select_from(cards.outerjoin(debut, debut.c.card_id == cards.c.id))
        .where(cards.c.work_id == work_id)
        .where((cards.c.status == "confirmed") | cards.c.id.in_(discovered))
        .order_by(cards.c.status, cards.c.id)
    ).all()
    seen: dict[str, KnownEntity] = {}
    for r in rows:
        aliases = tuple(a["name"] for a in r.aliases or [])
        seen.setdefault(r.id, KnownEntity(r.name, r.type, aliases, r.chapter))
    return list(seen.values())


def chapter_hints(entities: list[KnownEntity], chapter: int, text: str) -> list[dict[str, Any]]:
    """The entities the chapter names that exist by then (never a later debut)."""
    return [
        {"name": e.name, "type": e.type, "aliases": list(e.aliases)}
        for e in entities
        if (e.first_chapter is None or e.first_chapter <= chapter)
        and any(n in text for n in (e.name, *e.aliases))
    ]


def canonical_names(entities: list[KnownEntity]) -> dict[str, str]:
    """alias → the entity's name; a name claimed by two entities maps to neither."""
    owners: dict[str, set[str]] = {}
    for e in entities:
        for name in (e.name, *e.aliases):
            owners.setdefault(name, set()).add(e.name)
    return {n: next(iter(o)) for n, o in owners.items() if len(o) == 1}


def unify_names(output: ChapterExtraction, names: dict[str, str]) -> ChapterExtraction:
    """The extraction with every alias of a known entity written as that entity's name."""
    card_list = []
    for card in output.cards:
        name = names.get(card.name, card.name)
        aliases = [a for a in card.aliases if a != name]
        if name != card.name and card.name not in aliases:
            aliases.append(card.name)
        card_list.append(card.model_copy(update={"name": name, "aliases": aliases}))
    facts = [
        f.model_copy(update={"subject": names.get(f.subject, f.subject)}) for f in output.facts
    ]
    return output.model_copy(update={"cards": card_list, "facts": facts})


def batch_input(conn: Connection, work_id: int, chapter: int) -> dict[str, Any]:
    """The frozen extractor input of one batch: the chapter extraction input plus the hints."""
    task_input = extraction_input(conn, work_id, chapter)
    hints = chapter_hints(known_entities(conn, work_id), chapter, task_input["text"])
    known = {c["name"] for c in task_input["knownCards"]}
    return {
        **task_input,
        "task": "拆书抽取：只抽本章正文写出的实体、状态变化与关系，每条带本章逐字原句。",
        "discoveredEntities": [h for h in hints if h["name"] not in known],
    }


# --- the dry-run estimate ----------------------------------------------------------------------


@dataclass(frozen=True)
class Estimate:
    calls: int
    done: int
    tokens_in: int
    tokens_out: int
    cost: Decimal | None
    currency: str | None
    note: str | None

    def to_json(self) -> dict[str, Any]:
        return {
            "calls": self.calls,
            "batchesDone": self.done,
            "tokensIn": self.tokens_in,
            "tokensOut": self.tokens_out,
            "cost": str(self.cost) if self.cost is not None else None,
            "currency": self.currency,
            "note": self.note,
        }


def estimate(
    conn: Connection, work_id: int, batches: list[Batch], provider: str, model: str
) -> Estimate:
    """Calls, tokens and cost the batches still to run would take (an estimate, said so)."""
    todo = [b for b in batches if b.status != "done"]
    tokens_in = 0
    for b in todo:
        text = get_chapter_text(conn, work_id, b.chapter).text
        tokens_in += _tokens(text) + PROMPT_OVERHEAD_TOKENS
    tokens_out = int(Decimal(tokens_in) * REPLY_SHARE)
    cost, currency, note = _price(provider, model, tokens_in, tokens_out)
    return Estimate(
        len(todo), len(batches) - len(todo), tokens_in, tokens_out, cost, currency, note
    )


def _price(provider: str, model: str, tokens_in: int, tokens_out: int):
    from muse.agents import resolve_provider  # noqa: PLC0415

    try:
        price = resolve_provider(provider).capabilities.price_for(model)
    except MuseError as err:
        return None, None, f"无法确定价格：{err.message}"
    if price is None:
        return None, None, f"提供方「{provider}」没有模型「{model}」的价格表，费用未知。"
    total = (Decimal(tokens_in) * price.input + Decimal(tokens_out) * price.output) / 1_000_000
    return total.quantize(Decimal("0.0001")), price.currency, None


def _tokens(text: str) -> int:
    """One token per Han character, one per four others (context/tokens.py's rule, which errs
    high), for the chapter text as it travels inside the JSON input."""
    han = count_han(text)
    return han + math.ceil(max(len(json.dumps(text, ensure_ascii=False)) - han, 0) / 4)
