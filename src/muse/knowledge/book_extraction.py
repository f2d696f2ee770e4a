"""拆书 with a model: the extractor over a whole imported book, in batches of chapters, on the queue.

``muse cards extract --chapters A-B -p P -m M`` cuts the book into batches of consecutive chapters
(at most ``--batch-chapters`` chapters and ``--batch-tokens`` input tokens each) and queues each as
a ``book_extract_batch`` job (store/jobs.py), so any number of workers can share the book. A batch
is one extractor call over its chapters (the post-chapter extraction's contract and verification,
extraction.py) with two additions:

* **hints**: the entities discovery proposed (discovery_drafts.py) that the chapters name and that
  have appeared by then — never one whose first occurrence is after the batch (principle 4);
* **one name per entity**: a name the extractor uses that is an alias of a card, or of a
  discovered entity, is rewritten to that entity's name before the drafts are stored; the drafts
  of all batches about one entity are merged into one draft (book_drafts.py), and what
  contradicts goes to the conflict queue, never overwriting.

Every item is placed in the chapter whose text holds its quote verbatim; a quote no chapter of the
batch holds is refused.

Idempotent and resumable: a batch is keyed by (work, its chapters and their revisions, provider,
model); a chapter revision a done batch extracted is never queued again, whatever the batch size
of the re-run, so a killed run resumes where it stopped without re-calling the model.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from sqlalchemy import Connection, select

from muse.core.errors import InvalidInput, MuseError
from muse.core.text import count_han
from muse.knowledge.extraction import extraction_input
from muse.knowledge.extraction_contracts import ChapterExtraction
from muse.knowledge.tables import card_drafts, card_milestones, cards
from muse.store.jobs import enqueue
from muse.store.tables import jobs
from muse.works import chapter_revisions, get_chapter_text

BATCH_JOB = "book_extract_batch"
BATCH_INPUT_SCHEMA = "book-extraction-input-v1"
# a batch is at most this many chapters and this many input tokens (chapter texts plus the
# prompt around them); a chapter larger than the budget is a batch of its own
DEFAULT_BATCH_CHAPTERS = 5
DEFAULT_BATCH_TOKENS = 24_000
# a rough size of the extractor's prompt around its input (role contract, task, schema), and of
# the reply per input token: used only for the --dry-run estimate, which says it is an estimate
PROMPT_OVERHEAD_TOKENS = 2500
REPLY_SHARE = Decimal("0.15")


@dataclass(frozen=True)
class Batch:
    chapters: tuple[tuple[int, int], ...]  # (chapter, revision), in order
    status: str  # todo | queued | done
    tokens: int = 0  # the input estimate: chapter texts plus the prompt overhead

    @property
    def numbers(self) -> list[int]:
        return [n for n, _ in self.chapters]

    @property
    def label(self) -> str:
        first, last = self.chapters[0][0], self.chapters[-1][0]
        return f"第 {first} 章" if first == last else f"第 {first}–{last} 章"

    def key(self, work_id: int, provider: str, model: str) -> str:
        spans = ",".join(f"{n}@{r}" for n, r in self.chapters)
        digest = hashlib.sha256(spans.encode()).hexdigest()[:16]
        first, last = self.chapters[0][0], self.chapters[-1][0]
        return f"book-extract:{work_id}:{first}-{last}:{digest}:{provider}:{model}"


def payload_chapters(payload: dict[str, Any]) -> list[tuple[int, int]]:
    """(chapter, revision) pairs of a batch job's payload (one-chapter jobs of earlier runs too)."""
    if isinstance(payload.get("chapters"), list):
        return [(int(n), int(r)) for n, r in payload["chapters"]]
    if "chapter" in payload and "revision" in payload:
        return [(int(payload["chapter"]), int(payload["revision"]))]
    return []


def _covered(
    conn: Connection, work_id: int, provider: str, model: str
) -> tuple[set[tuple[int, int]], list[tuple[tuple[tuple[int, int], ...], str]]]:
    """Chapter revisions already extracted by a done batch, and the batches still on the queue
    (queued or running), for this work, provider and model: whatever the batch size then."""
    rows = conn.execute(
        select(jobs.c.payload, jobs.c.status).where(
            jobs.c.kind == BATCH_JOB, jobs.c.work_id == work_id, jobs.c.status != "failed"
        )
    ).all()
    done: set[tuple[int, int]] = set()
    active: list[tuple[tuple[tuple[int, int], ...], str]] = []
    for payload, status in rows:
        if payload.get("provider") != provider or payload.get("model") != model:
            continue
        pairs = tuple(payload_chapters(payload))
        if status == "done":
            done.update(pairs)
        else:
            active.append((pairs, status))
    return done, active


def plan_batches(
    conn: Connection,
    work_id: int,
    span: tuple[int, int] | None,
    provider: str,
    model: str,
    *,
    max_chapters: int = DEFAULT_BATCH_CHAPTERS,
    token_budget: int = DEFAULT_BATCH_TOKENS,
) -> list[Batch]:
    """The canonical chapters in ``span`` cut into batches of consecutive chapters (at most
    ``max_chapters`` and ``token_budget`` input tokens each), with their state. A chapter
    revision a done batch extracted is a done batch of its own; one on the queue stays in the
    batch it is queued in, so a re-run with another size never calls the model twice for it."""
    if max_chapters < 1 or token_budget < PROMPT_OVERHEAD_TOKENS + 1:
        raise InvalidInput(
            f"每批至少 1 章、token 上限至少 {PROMPT_OVERHEAD_TOKENS + 1}。",
            hint="例如 --batch-chapters 5 --batch-tokens 24000。",
        )
    revisions = chapter_revisions(conn, work_id)
    numbers = [n for n in sorted(revisions) if span is None or span[0] <= n <= span[1]]
    if not numbers:
        where = f"第 {span[0]}–{span[1]} 章" if span else "作品"
        raise InvalidInput(f"{where}没有正文章节，无从抽取。", hint="先用 muse import 导入书稿。")
    done, active = _covered(conn, work_id, provider, model)
    wanted = {(n, revisions[n]) for n in numbers}
    out: list[Batch] = [Batch((pair,), "done") for pair in sorted(wanted & done)]
    queued: set[tuple[int, int]] = set()
    for pairs, _ in active:
        if set(pairs) <= wanted and not set(pairs) & (done | queued):
            tokens = sum(_chapter_tokens(conn, work_id, n) for n, _ in pairs)
            out.append(Batch(pairs, "queued", tokens + PROMPT_OVERHEAD_TOKENS))
            queued.update(pairs)
    current: list[tuple[int, int]] = []
    size = 0
    for n in numbers:
        pair = (n, revisions[n])
        if pair in done or pair in queued:
            continue
        tokens = _chapter_tokens(conn, work_id, n)
        if current and (
            len(current) >= max_chapters
            or size + tokens + PROMPT_OVERHEAD_TOKENS > token_budget
            or current[-1][0] != _previous(numbers, n)
        ):
            out.append(Batch(tuple(current), "todo", size + PROMPT_OVERHEAD_TOKENS))
            current, size = [], 0
        current.append(pair)
        size += tokens
    if current:
        out.append(Batch(tuple(current), "todo", size + PROMPT_OVERHEAD_TOKENS))
    return sorted(out, key=lambda b: b.chapters[0][0])


def _previous(numbers: list[int], n: int) -> int | None:
    i = numbers.index(n)
    return numbers[i - 1] if i else None


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
                "chapters": [list(pair) for pair in b.chapters],
                "provider": provider,
                "model": model,
            },
            work_id=work_id,
            dedupe_key=b.key(work_id, provider, model),
        )
        for b in batches
        if b.status == "todo"
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


def batch_input(conn: Connection, work_id: int, chapters: Sequence[int]) -> dict[str, Any]:
    """The frozen extractor input of one batch: its chapters' canonical texts, what the book
    knows as of the first of them (principle 4), and the discovered entities as hints (never
    one that first appears after the batch's last chapter)."""
    numbers = sorted(chapters)
    first = extraction_input(conn, work_id, numbers[0])
    texts = [first] + [extraction_input(conn, work_id, n) for n in numbers[1:]]
    hints: dict[str, dict[str, Any]] = {}
    entities = known_entities(conn, work_id)
    for t in texts:
        for h in chapter_hints(entities, t["chapter"], t["text"]):
            hints.setdefault(h["name"], h)
    known = {c["name"] for c in first["knownCards"]}
    return {
        "schemaVersion": BATCH_INPUT_SCHEMA,
        "task": (
            "拆书抽取：只抽这几章正文写出的实体、状态变化与关系，每条带正文逐字原句"
            "（原句在哪一章，事实就记在哪一章）。"
        ),
        "workId": work_id,
        "chapters": [
            {
                "chapter": t["chapter"],
                "revision": t["revision"],
                "title": t["title"],
                "text": t["text"],
            }
            for t in texts
        ],
        "knownCards": first["knownCards"],
        "cardTypes": first["cardTypes"],
        "factTypes": first["factTypes"],
        "discoveredEntities": [h for h in hints.values() if h["name"] not in known],
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
    tokens_in = sum(b.tokens for b in todo)
    tokens_out = int(Decimal(tokens_in) * REPLY_SHARE)
    cost, currency, note = _price(provider, model, tokens_in, tokens_out)
    return Estimate(
        len(todo), len(batches) - len(todo), tokens_in, tokens_out, cost, currency, note
    )


def _price(
    provider: str, model: str, tokens_in: int, tokens_out: int
) -> tuple[Decimal | None, str | None, str | None]:
    from muse.agents import resolve_provider  # noqa: PLC0415

    try:
        price = resolve_provider(provider).capabilities.price_for(model)
    except MuseError as err:
        return None, None, f"无法确定价格：{err.message}"
    if price is None:
        return None, None, f"提供方「{provider}」没有模型「{model}」的价格表，费用未知。"
    total = (Decimal(tokens_in) * price.input + Decimal(tokens_out) * price.output) / 1_000_000
    return total.quantize(Decimal("0.0001")), price.currency, None


def _chapter_tokens(conn: Connection, work_id: int, chapter: int) -> int:
    return _tokens(get_chapter_text(conn, work_id, chapter).text)


def _tokens(text: str) -> int:
    """One token per Han character, one per four others (context/tokens.py's rule, which errs
    high), for the chapter text as it travels inside the JSON input."""
    han = count_han(text)
    return han + math.ceil(max(len(json.dumps(text, ensure_ascii=False)) - han, 0) / 4)
