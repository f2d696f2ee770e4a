"""The WriterOutput of an author's edit (修改后合并, spec 001 §4, spec 000 §9 and §11).

An edited candidate is checked by the same gates as a model's candidate
(:func:`muse.flow.checking.check_candidate`), so it needs the same WriterOutput v1 record. What
it may claim differs; these are the rules chosen:

* **Body.** The author's text verbatim, only normalised (NFC, LF, leading BOM dropped): the
  author's blank lines and spacing stay as typed. ``candidateSha256`` is over those bytes.
* **Claims.** The author makes no model claims. A claim of the previous version follows its
  sentence through the edit: where the exact sentence is still in the new body it is re-located
  (new offsets, new hash, same evidence ids); where the author rewrote it, the sentence diff
  (:mod:`muse.flow.diff`) aligns the old sentence with the author's replacement and the claim
  points at that replacement — whether it still fulfils the constraint is the semantic
  detector's call (it checks the hard events against the outline and the evidence). Where the
  author deleted the sentence with no replacement, the claim comes back *unlocated* and the
  mechanical gate blocks, naming the constraint: Muse can no longer show where the hard event
  is, and it does not guess. Required entities stay the gate's presence check by name.
* **Length.** The acceptance band still blocks (spec 000 §9: an output-contract error; it is the
  mechanical floor every canonical chapter from the pipeline meets). The generation band is the
  writer's target, not a check. An author who wants a chapter outside the band edits canonical
  prose directly, outside the agent flow (spec 001 §2).
* **Declarations.** New-setting declarations of the previous version are kept when their name is
  still in the body; the author requests no evidence.
* **Eligibility** comes from the run type and mode, never from the previous row; ``attempt`` is
  the run's current attempt.

Attribution: the edit is ``author_edit`` in the decision row, the run event and the report.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import Connection

from muse.context import (
    ClaimLedgerEntry,
    DraftClaim,
    SelfCheck,
    UnlocatedClaim,
    WriterContext,
    WriterOutput,
    snapshot_payload,
)
from muse.core.canonical import sha256_hex
from muse.core.errors import InvalidInput
from muse.core.prose_chars import refusal_message
from muse.core.text import normalize_text
from muse.flow.diff import Change, diff_texts

ATTRIBUTION = "author_edit"
AUTHOR_NOTE = "作者修改稿（author_edit）：声明随原句跟到作者的改写处，由语义检测核对是否仍兑现。"
DELETED = "作者删去了兑现该约束的原句，正文中已找不到它"


@dataclass(frozen=True)
class AuthorOutput:
    output: WriterOutput
    unlocated: tuple[UnlocatedClaim, ...]  # claims whose sentence the author deleted

    @property
    def dropped_claims(self) -> tuple[str, ...]:
        return tuple(u.claim.constraint_id for u in self.unlocated)


def normalize_edit(text: str) -> str:
    body = normalize_text(text)
    if not body.strip():
        raise InvalidInput("修改后的正文是空的。", hint="请提供完整的章节正文。")
    problem = refusal_message(body, "修改后的正文")
    if problem:
        raise InvalidInput(problem)
    return body


def load_context(conn: Connection, snapshot_id: str) -> WriterContext:
    """The frozen WriterContext a candidate was written from, exactly as stored."""
    payload = snapshot_payload(conn, snapshot_id)
    return WriterContext.model_validate(payload)


def build_author_output(
    previous: WriterOutput,
    body: str,
    *,
    version: int,
    attempt: int,
    acceptance_eligible: bool,
) -> AuthorOutput:
    old_body = previous.candidate_body
    digest = sha256_hex(body)
    changes = diff_texts(old_body, body).changes
    ledger: list[ClaimLedgerEntry] = []
    unlocated: list[UnlocatedClaim] = []
    for claim in previous.claim_ledger:
        span = follow(old_body, body, changes, claim.start_code_point, claim.end_code_point)
        if span is None:
            unlocated.append(UnlocatedClaim(_draft_claim(old_body, claim), DELETED))
            continue
        ledger.append(
            claim.model_copy(
                update={
                    "candidate_sha256": digest,
                    "start_code_point": span[0],
                    "end_code_point": span[1],
                }
            )
        )
    kept = tuple(d for d in previous.new_setting_declarations if d.name in body)
    covered = tuple(dict.fromkeys(c.claim_id.split(":", 1)[-1] for c in ledger))
    output = previous.model_copy(
        update={
            "attempt": attempt,
            "candidate_version": version,
            "candidate_sha256": digest,
            "acceptance_eligible": acceptance_eligible,
            "candidate_body": body,
            "claim_ledger": tuple(ledger),
            "evidence_requests": (),
            "new_setting_declarations": kept,
            "self_check": SelfCheck(covered_constraint_ids=covered, notes=AUTHOR_NOTE),
        }
    )
    # model_copy skips validation: validate the record as any WriterOutput is validated.
    return AuthorOutput(WriterOutput.model_validate(output.wire()), tuple(unlocated))


def follow(
    old: str, new: str, changes: tuple[Change, ...], start: int, end: int
) -> tuple[int, int] | None:
    """Where the claim ``[start, end)`` of ``old`` is in ``new``; None: its sentence is gone."""
    quote = old[start:end]
    at = new.find(quote) if quote else -1
    if at >= 0:
        return at, at + len(quote)
    for change in changes:
        if change.old_start < end and start < change.old_end:  # the claim's sentence changed
            text = change.new.strip("\n")
            if not text.strip():
                return None
            lead = len(change.new) - len(change.new.lstrip("\n"))
            return change.new_start + lead, change.new_start + lead + len(text)
    return None


def _draft_claim(old_body: str, claim: ClaimLedgerEntry) -> DraftClaim:
    return DraftClaim(
        constraint_id=claim.claim_id.split(":", 1)[-1],
        quote=old_body[claim.start_code_point : claim.end_code_point] or claim.claim_id,
        fact_evidence_id=claim.fact_evidence_id,
        prose_evidence_id=claim.prose_evidence_id,
    )
