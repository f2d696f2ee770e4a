"""Offline optimisation rounds (spec 000 §10): at most five, exactly one declared variable each,
each a full evaluation over the stub server compared with the round before."""

from __future__ import annotations

import pytest
import yaml
from sqlalchemy.exc import IntegrityError

from muse.core.clock import utc_now
from muse.core.errors import InvalidInput
from muse.evaluation.report import build_report
from muse.evaluation.rounds import declare_round, evaluate_round
from muse.evaluation.runner import run_set
from muse.evaluation.sample_state import zone_engine
from muse.evaluation.tables import eval_rounds
from tests.evaluation.harness import BOOKS, register

from .harness import set_yaml
from .test_rewrite_arm import _meta_on_first_c_draft

ONE = BOOKS[0]


def _base(version: str, samples: int = 1, **variables: int) -> str:
    doc = yaml.safe_load(set_yaml(version, {ONE: samples}))
    doc["variables"] = variables
    return yaml.safe_dump(doc, allow_unicode=True, sort_keys=False)


def test_a_round_changes_one_variable_and_is_compared_with_the_previous(
    engine, books, router, stub
):
    router.writer_edit = _meta_on_first_c_draft
    base = register(engine, _base("opt", maxRewrites=2, historicalEvidenceTokens=8000), router)
    run_set(engine, base, concurrency=1)
    before = len(stub.requests)

    item = declare_round(engine, base, {"maxRewrites": 0})
    assert (item.number, item.state, item.previous_value, item.value) == (1, "declared", 2, 0)
    with zone_engine(engine).connect() as conn:  # teach the stub the round's fresh labels
        from sqlalchemy import select

        from muse.evaluation.tables import eval_runs

        for row in conn.execute(select(eval_runs).where(eval_runs.c.set_id == item.set_id)):
            for arm, label in row.labels.items():
                router.label_arm[label], router.label_sample[label] = arm, row.sample_key
    item, _ = evaluate_round(engine, item, concurrency=1)
    assert item.state == "reported"
    # a full evaluation without C's rewrite: 3 writers, detectors for A and B (C's draft stops at
    # the mechanical gate), 2 judges
    assert len(stub.requests) - before == 3 + 2 + 2

    round_report = build_report(engine, item.set_id)
    assert round_report["round"]["variable"] == "maxRewrites"
    assert round_report["variables"]["maxRewrites"] == 0
    c_check = round_report["samples"][0]["arms"]["C"]["check"]
    assert (c_check["attempts"], c_check["runState"]) == (1, "blocked_user_action")

    rounds = build_report(engine, base)["rounds"]
    assert [r["number"] for r in rounds] == [0, 1]
    assert rounds[0]["variables"]["maxRewrites"] == 2 and rounds[0]["changeFromPrevious"] is None
    assert rounds[1]["variable"] == "maxRewrites" and rounds[1]["variableLabel"]
    assert (rounds[1]["previousValue"], rounds[1]["value"]) == (2, 0)
    assert rounds[1]["changeFromPrevious"] is not None

    # the board's report page of the base set shows both rounds and the variable of round 1
    from fastapi.testclient import TestClient

    from muse.web import WebSecurity, create_app

    client = TestClient(
        create_app(engine, WebSecurity()),
        base_url="http://127.0.0.1:8765",
        client=("127.0.0.1", 50000),
    )
    page = client.get(f"/evaluation/sets/{base}")
    assert page.status_code == 200
    table = page.text.split('id="eval-rounds"', 1)[1].split("</table>", 1)[0]
    assert "第 0 轮" in table and "第 1 轮" in table and "maxRewrites" in table and "2 → 0" in table


def test_refusals_two_variables_undeclared_unchanged_unfinished(engine, books, router):
    base = register(engine, _base("opt-refuse", maxRewrites=2, cardTokens=6000), router)
    with pytest.raises(InvalidInput, match="基础评测（第 0 轮）尚未完成"):
        declare_round(engine, base, {"maxRewrites": 1})
    run_set(engine, base, concurrency=1)
    with pytest.raises(InvalidInput, match="每轮只能改变一个变量，本轮要改 2 个"):
        declare_round(engine, base, {"maxRewrites": 1, "cardTokens": 3000})
    with pytest.raises(InvalidInput, match="没有给出要改变的变量"):
        declare_round(engine, base, {})
    with pytest.raises(InvalidInput, match="没有在评测集.*variables 中声明"):
        declare_round(engine, base, {"patternTokens": 100})
    with pytest.raises(InvalidInput, match="没有改变任何变量"):
        declare_round(engine, base, {"maxRewrites": 2})
    with pytest.raises(InvalidInput, match="必须在 0–10 之间"):
        declare_round(engine, base, {"maxRewrites": 11})
    first = declare_round(engine, base, {"maxRewrites": 1})
    with pytest.raises(InvalidInput, match="第 1 轮.*尚未完成评测"):
        declare_round(engine, base, {"cardTokens": 3000})
    assert declare_round(engine, base, {"maxRewrites": 1}).id == first.id  # same change: resume
    with pytest.raises(InvalidInput, match="本身是第 1 轮的评测集"):
        declare_round(engine, first.set_id, {"maxRewrites": 2})


def test_a_sixth_round_is_refused(engine, books, router):
    base = register(engine, _base("opt-six", historicalEvidenceTokens=8000), router)
    run_set(engine, base, concurrency=1)
    for value in (4000, 2000, 1000, 500, 250):
        item = declare_round(engine, base, {"historicalEvidenceTokens": value})
        item, _ = evaluate_round(engine, item, concurrency=1)
        assert item.state == "reported"
    with pytest.raises(InvalidInput, match="离线优化最多 5 轮.*不能再开第 6 轮"):
        declare_round(engine, base, {"historicalEvidenceTokens": 100})
    rounds = build_report(engine, base)["rounds"]
    assert [(r["number"], r.get("value")) for r in rounds] == [
        (0, None),
        (1, 4000),
        (2, 2000),
        (3, 1000),
        (4, 500),
        (5, 250),
    ]
    assert all(r["variable"] == "historicalEvidenceTokens" for r in rounds[1:])
    # the database backs the limit too
    now = utc_now()
    with pytest.raises(IntegrityError), zone_engine(engine).begin() as conn:
        conn.execute(
            eval_rounds.insert().values(
                id="evround_6",
                base_set_id=base,
                number=6,
                variable="historicalEvidenceTokens",
                previous_value=250,
                value=100,
                set_id=rounds[5]["setId"],
                state="declared",
                revision=0,
                created_at=now,
                updated_at=now,
            )
        )


def test_round_command_refuses_two_variables_in_chinese(muse, engine, books, tmp_path):  # noqa: F811
    path = tmp_path / "set.yaml"
    doc = yaml.safe_load(
        set_yaml("opt-cli", {ONE: 1}, judge_provider="offline", worker_provider="offline")
    )
    doc["variables"] = {"maxRewrites": 2, "cardTokens": 6000}
    path.write_text(yaml.safe_dump(doc, allow_unicode=True), encoding="utf-8")
    muse("eval", "preregister", str(path))
    muse("eval", "run", "opt-cli", "--yes")
    two = muse(
        "eval",
        "round",
        "opt-cli",
        "--variable",
        "maxRewrites",
        "--value",
        "1",
        "--variable",
        "cardTokens",
        "--value",
        "10",
        ok=False,
    )
    assert two.exit_code != 0 and "每轮只能改变一个变量" in two.output
    round_file = tmp_path / "round.yaml"
    round_file.write_text("maxRewrites: 1\ncardTokens: 10\n", encoding="utf-8")
    from_file = muse("eval", "round", "opt-cli", "--file", str(round_file), ok=False)
    assert from_file.exit_code != 0 and "每轮只能改变一个变量" in from_file.output
    assert "Traceback" not in two.output + from_file.output
    done = muse.json(
        "eval", "round", "opt-cli", "--variable", "maxRewrites", "--value", "1", "--yes"
    )
    assert done["round"]["number"] == 1 and done["round"]["state"] == "reported"
    text = muse("eval", "report", "opt-cli").stdout
    assert "离线优化轮次" in text and "maxRewrites" in text and "2 → 1" in text
