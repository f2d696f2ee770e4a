"""needs_evidence: what Muse does with the semantic detector's evidence gaps (spec 001 §5, §6).

The detector may say it lacks evidence instead of judging. Missing evidence is never a pass, and
neither is it a rewrite: Muse searches the *as-of view* (confirmed cards as of the freeze, the
prose index up to the freeze point — principle 4) for every gap and stops for the author:

* **found** — the view holds material about the gap: it is appended to the run's record as
  factEvidence (``run_evidence``) and the run ends in ``authorization_required``: continuing,
  gathering more evidence, rewriting or changing direction is the author's call, via a new run.
* **new_setting** — nothing about it exists before the freeze point: the writer invented it.
  That is allowed (spec 001 §6: zero hits do not forbid new settings and trigger no rewrite); the
  gap becomes a new-setting candidate the author sees with the candidate, and the candidate goes
  to the author. Whether the setting becomes canon is the author's decision.
* **conflict** — the gap touches canon in conflict (a confirmed card with an open conflict), or a
  setting the writer declared new has the name of a confirmed card: fail closed, the candidate
  is REJECTED and the run blocked.
* **undetermined** — nothing to search (a verdict without any subject) or no index: the author
  decides, as with ``found``.

The worst outcome decides the run: conflict > found/undetermined > new_setting — that is the
verdict policy's (``quality.verdict``); this module only searches.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection

from muse.context import AsOfView, NewSettingDeclaration, WriterOutput, summarize
from muse.core.canonical import sha256_hex
from muse.core.errors import NotFound
from muse.knowledge import CardState
from muse.quality import EvidenceGap, GapResolution

HITS_PER_GAP = 3


def resolve_gaps(
    conn: Connection,
    *,
    work_id: int,
    as_of: int,
    gaps: tuple[EvidenceGap, ...],
    output: WriterOutput,
) -> list[GapResolution]:
    """Search the as-of view for every gap (read only: nothing is written here)."""
    view = AsOfView(conn, work_id, as_of)
    states = view.card_states
    in_conflict = view.cards_in_conflict()
    return [
        _resolve(view, states, in_conflict, index, gap, output)
        for index, gap in enumerate(gaps, start=1)
    ]


def _named_cards(states: list[CardState], text: str) -> list[CardState]:
    """Confirmed cards (as of the freeze) whose name or a known alias occurs in ``text``."""
    return [s for s in states if any(n and n in text for n in (s.name, *s.aliases))]


def _declared(output: WriterOutput, text: str) -> list[NewSettingDeclaration]:
    return [d for d in output.new_setting_declarations if d.name in text]


def _resolve(
    view: AsOfView,
    states: list[CardState],
    in_conflict: set[str],
    index: int,
    gap: EvidenceGap,
    output: WriterOutput,
) -> GapResolution:
    if gap.origin == "verdict_without_issue" or not gap.subject.strip():
        return GapResolution(
            index, gap, "undetermined", (), None, "检测员没有指明缺什么证据，无从检索；请作者判断。"
        )
    cards = _named_cards(states, gap.subject)
    conflicted = [c.name for c in cards if c.card_id in in_conflict]
    if conflicted:
        note = f"涉及的正式设定「{'、'.join(conflicted)}」有未解决的冲突，失败关闭。"
        return GapResolution(index, gap, "conflict", (), None, note)
    declared = _declared(output, gap.subject)
    clash = [d.name for d in declared if _named_cards(states, d.name)]
    if clash:
        note = f"写手把「{'、'.join(clash)}」申报为新设定，但它已是正式设定，与正典冲突，失败关闭。"
        return GapResolution(index, gap, "conflict", (), None, note)
    try:
        evidence = _card_evidence(view, cards) + _prose_evidence(view, cards, gap.subject)
    except NotFound as err:  # no search index: the search did not run, which is not "no hits"
        return GapResolution(index, gap, "undetermined", (), None, f"无法检索：{err}")
    if evidence:
        where = "、".join(e["label"] for e in evidence)
        note = f"在冻结点（第 {view.as_of} 章）前找到相关材料：{where}。是否据此继续，由作者决定。"
        return GapResolution(index, gap, "found", tuple(evidence), None, note)
    setting = _new_setting(gap, declared)
    note = f"冻结点（第 {view.as_of} 章）前没有任何相关材料：视为新设定候选，是否入正典由作者决定。"
    return GapResolution(index, gap, "new_setting", (), setting, note)


def _card_evidence(view: AsOfView, cards: list[CardState]) -> list[dict[str, Any]]:
    out = []
    for state in cards:
        text = summarize(state)
        out.append(
            {
                "id": f"fe-gap-card-{state.card_id}",
                "sourceType": "confirmed_card",
                "sourceRef": {"cardId": state.card_id, "asOf": view.as_of},
                "sha256": sha256_hex(text),
                "text": text,
                "label": f"正式设定「{state.name}」",
            }
        )
    return out


def _prose_evidence(view: AsOfView, cards: list[CardState], subject: str) -> list[dict[str, Any]]:
    names = [n for c in cards for n in (c.name, *c.aliases)]
    hits = (
        view.search_names(names, HITS_PER_GAP) if names else view.search_text(subject, HITS_PER_GAP)
    )
    return [
        {
            "id": f"fe-gap-prose-{h.chapter}-{h.start}",
            "sourceType": "canonical_prose",
            "sourceRef": {
                "chapter": h.chapter,
                "revision": h.revision,
                "start": h.start,
                "end": h.end,
            },
            "sha256": h.sha256,
            "text": h.text,
            "label": f"第 {h.chapter} 章 [{h.start}, {h.end})",
        }
        for h in hits
    ]


def _new_setting(gap: EvidenceGap, declared: list[NewSettingDeclaration]) -> dict[str, Any]:
    if declared:
        d = declared[0]
        return {
            "name": d.name,
            "kind": d.kind,
            "statement": d.description,
            "source": "writer_declaration",
        }
    return {"name": gap.subject, "kind": "other", "statement": gap.needed, "source": "detector_gap"}
