"""``muse models approve / policy / use`` and commands that run on the work's chosen model."""

import json

from sqlalchemy import select

from muse.agents.tables import model_calls
from tests.support.marked_book import NEXT


def _receipt_params(engine) -> list[dict]:
    with engine.connect() as conn:
        return [r.request_params for r in conn.execute(select(model_calls))]


def test_approve_then_policy_shows_the_new_version_in_force(muse):
    result = muse(
        "models", "approve", "--role", "writer", "--provider", "ollama", "--model", "qwen2.5:7b"
    )
    assert "writer-approved-v1" in result.stdout
    assert "ollama:qwen2.5:7b" in result.stdout

    rows = {r["role"]: r for r in muse.json("models", "policy")}
    assert rows["writer"]["policyVersion"] == "writer-approved-v1"
    assert rows["writer"]["source"] == "approved"
    assert "qwen2.5:7b" in rows["writer"]["models"]
    assert rows["writer"]["approval"]["added"] == [{"provider": "ollama", "model": "qwen2.5:7b"}]
    assert rows["judge"]["source"] == "builtin"
    assert "qwen2.5:7b" in muse("models", "policy").stdout


def test_approve_refuses_a_wildcard_for_the_judge_in_chinese(muse):
    result = muse(
        "models", "approve", "--role", "judge", "--provider", "x", "--model", "glm-*", ok=False
    )
    assert result.exit_code == 1
    assert "通配符" in result.stderr
    assert "Traceback" not in result.output


def test_use_is_refused_for_a_model_the_policy_lacks(muse, book):
    result = muse("models", "use", "writer", "ollama:qwen2.5:7b", ok=False)
    assert result.exit_code == 1
    assert "muse models approve" in result.stderr
    assert muse.json("models", "use") == []


def test_use_rejects_a_choice_without_provider(muse, book):
    result = muse("models", "use", "writer", "qwen2.5", ok=False)
    assert result.exit_code == 1 and "提供方:模型ID" in result.stderr


def test_write_without_flags_needs_a_choice_and_says_how(muse, book):
    result = muse("write", str(NEXT), ok=False)
    assert result.exit_code == 1
    assert "muse models use writer" in result.stderr
    half = muse("write", str(NEXT), "--provider", "offline", ok=False)
    assert half.exit_code == 1 and "同时给出" in half.stderr


def test_write_runs_on_the_chosen_model_and_the_receipt_says_so(muse, engine, book):
    muse("models", "use", "writer", "offline:offline-1")
    assert muse.json("models", "use")[0]["model"] == "offline-1"

    summary = muse.json("write", str(NEXT))

    assert summary["candidate_id"]
    writer = [p["modelChoice"] for p in _receipt_params(engine) if "modelChoice" in p]
    assert writer and all(c["source"] == "work" and c["role"] == "writer" for c in writer)
    runs = muse.json("runs")
    assert (runs[0]["provider"], runs[0]["model"]) == ("offline", "offline-1")


def test_a_command_line_flag_wins_over_the_choice(muse, engine, book):
    muse("models", "approve", "--role", "writer", "--provider", "offline", "--model", "offline-2")
    muse("models", "use", "writer", "offline:offline-2")

    muse.json("write", str(NEXT), "--provider", "offline", "--model", "offline-1")

    choices = [p["modelChoice"] for p in _receipt_params(engine) if "modelChoice" in p]
    assert choices and all(c["source"] == "flag" and c["model"] == "offline-1" for c in choices)


def test_the_choice_is_never_taken_from_the_environment(muse, book, monkeypatch):
    for name in ("MUSE_PROVIDER", "MUSE_MODEL", "MUSE_WRITER_MODEL", "OPENAI_MODEL"):
        monkeypatch.setenv(name, "offline-1")
    result = muse("write", str(NEXT), ok=False)
    assert result.exit_code == 1 and "muse models use" in result.stderr


def test_revise_prefers_the_works_choice_over_the_original_runs_model(muse, book):
    first = muse.json("write", str(NEXT), "--provider", "offline", "--model", "offline-1")
    muse("models", "approve", "--role", "writer", "--provider", "offline", "--model", "offline-2")
    muse("models", "use", "writer", "offline:offline-2")

    done = muse("revise", first["candidate_id"], "改：结尾换成悬念", "--json", ok=False)
    outcome = json.loads(done.stdout)

    runs = {r["id"]: r for r in muse.json("runs")}
    assert runs[outcome["newRunId"]]["model"] == "offline-2"
    assert runs[first["run_id"]]["model"] == "offline-1"


def test_candidate_facts_propose_uses_the_extractor_choice(muse, engine, book):
    cand = muse.json("write", str(NEXT), "-p", "offline", "-m", "offline-1")["candidate_id"]
    refused = muse("candidate", "facts", cand, "--propose", ok=False)
    assert refused.exit_code == 1 and "muse models use extractor" in refused.stderr

    muse("models", "use", "extractor", "offline:offline-1")
    out = muse.json("candidate", "facts", cand, "--propose")

    assert out["receiptId"]
    params = [
        p for p in _receipt_params(engine) if p.get("modelChoice", {}).get("role") == "extractor"
    ]
    assert params and params[0]["modelChoice"]["source"] == "work"
