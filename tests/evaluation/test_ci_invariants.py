"""The CI step ``.ci/invariants``: the demo plus an offline dry-run evaluation, then
``muse invariants`` — clean on the real rows it makes, exit 1 naming the row once a violation
is planted in that same database."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy import select

from muse.core.clock import utc_now
from muse.evaluation.sample_state import zone_engine
from muse.evaluation.tables import candidate_judgements, eval_arms, eval_runs
from muse.flow.tables import candidates
from muse.store.engine import make_engine

ROOT = Path(__file__).resolve().parents[2]
MUSE = Path(sys.executable).with_name("muse")


def _env(db: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MUSE_")}
    return {**env, "MUSE_DATABASE_URL": f"sqlite:///{db}"}


@pytest.mark.slow
def test_the_ci_step_checks_real_rows_and_fails_on_a_planted_violation(tmp_path):
    workspace = tmp_path / "ws"
    env = {k: v for k, v in os.environ.items() if not k.startswith("MUSE_")}
    step = subprocess.run(
        [str(ROOT / ".ci" / "invariants"), str(workspace)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert step.returncode == 0, step.stdout + step.stderr
    assert "常驻不变量全部成立" in step.stdout

    db = workspace / "muse.db"
    engine = zone_engine(make_engine(f"sqlite:///{db}"))
    with engine.begin() as conn:  # the rows are real: both zones are populated
        assert conn.execute(select(eval_runs.c.state)).scalars().all() != []
        production = conn.execute(
            select(candidates.c.state).where(candidates.c.acceptance_eligible.is_(True))
        ).scalars()
        assert "ACCEPTED" in list(production)
        evaluation_candidate = conn.execute(select(eval_arms.c.candidate_id)).scalars().first()
        conn.execute(  # an evaluation quality result shown with a candidate: a violation
            candidate_judgements.insert().values(
                id="cj_planted_ci",
                candidate_id=evaluation_candidate,
                provider="offline",
                model="offline-1",
                receipt_id="call_planted",
                sheet={},
                created_at=utc_now(),
            )
        )
    engine.dispose()

    checked = subprocess.run(
        [str(MUSE), "invariants", "--json"],
        cwd=tmp_path,
        env=_env(db),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert checked.returncode == 1, checked.stdout + checked.stderr
    report = json.loads(checked.stdout)
    assert report["ok"] is False
    assert [v["row_id"] for v in report["violations"]] == ["cj_planted_ci"]
