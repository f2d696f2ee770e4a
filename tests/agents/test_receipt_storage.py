"""A receipt of a call without secrets is stored as it is: the engine makes it storable."""

from __future__ import annotations

from sqlalchemy import select

from muse.agents.receipts import CallTrace, write_receipt
from muse.agents.tables import model_calls


def _stored(engine, trace: CallTrace) -> dict:
    with engine.connect() as conn:
        row = conn.execute(select(model_calls).where(model_calls.c.id == trace.id)).one()
    return dict(row._mapping)


def _trace(provider: str, task_input: dict, secrets: tuple[str, ...] = ()) -> CallTrace:
    return CallTrace(
        run_id=None,
        role="writer",
        task="generate",
        provider=provider,
        model_requested="m",
        task_input=task_input,
        secrets=secrets,
    )


def test_nul_characters_of_a_call_without_secrets_are_replaced(engine):
    trace = _trace("offline", {"键\x00": ["门\x00开了", {"内\x00": "层\x00"}]})
    trace.messages = [{"role": "user", "content": "提示\x00词"}]
    trace.output = {"paragraphs": [{"text": "a\x00b"}]}
    assert trace.secrets == ()
    write_receipt(engine, trace, status="ok", error="坏\x00了")
    row = _stored(engine, trace)
    # the full receipt, not the minimal one a refused insert leaves
    assert row["error"] == "坏\ufffd了"
    assert row["task_input"] == {"键\ufffd": ["门\ufffd开了", {"内\ufffd": "层\ufffd"}]}
    assert row["messages"] == [{"role": "user", "content": "提示\ufffd词"}]
    assert row["output"] == {"paragraphs": [{"text": "a\ufffdb"}]}


def test_a_secret_of_the_call_is_scrubbed_from_every_value(engine):
    secret = "k3y"  # shorter than a registered secret may be: only the scrub hides it
    trace = _trace("stub", {"note": f"用 {secret} 调用", secret: 1}, (secret,))
    write_receipt(engine, trace, status="ok", error=f"失败：{secret}")
    row = _stored(engine, trace)
    assert secret not in str(row)
