"""The offline provider: deterministic, schema-valid output for every role and task."""

from __future__ import annotations

from typing import Annotated, Literal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, ConfigDict, Field

from muse.agents.dispatching import dispatch
from muse.agents.errors import InvalidOutput, ModelMismatch, ProviderRejected
from muse.agents.providers.offline import (
    fallback_instance,
    generate_offline,
    register_offline_generator,
    unregister_offline_generator,
)
from muse.evaluation.contracts import JudgeScores
from tests.agents.role_outputs import ROLE_OUTPUTS
from tests.agents.strict_draft import StrictDraft
from tests.agents.test_dispatch_stub import only_receipt

INPUT = {
    "asOf": 3,
    "title": "旧宅",
    "candidates": [{"label": "甲", "text": "雨声扑面而来。"}],
    "fineOutline": {"hardEvents": ["林默推开旧宅的门"]},
}


@pytest.mark.parametrize("role, task", sorted(ROLE_OUTPUTS))
def test_every_default_output_is_valid_and_deterministic(engine, role, task):
    model = ROLE_OUTPUTS[(role, task)]
    first = dispatch(
        engine,
        role=role,
        task=task,
        provider="offline",
        model="offline-1",
        task_input=INPUT,
        output_model=model,
    )
    second = dispatch(
        engine,
        role=role,
        task=task,
        provider="offline",
        model="offline-1",
        task_input=INPUT,
        output_model=model,
    )
    assert isinstance(first.output, model)
    assert first.output == second.output and first.raw_text == second.raw_text
    assert first.model_returned == "offline-1"


def test_offline_receipts_are_complete(engine):
    result = dispatch(
        engine,
        role="writer",
        task="generate",
        provider="offline",
        model="offline-1",
        task_input=INPUT,
        output_model=StrictDraft,
        run_id="run_demo",
    )
    row = only_receipt(engine)
    assert (row["id"], row["status"], row["provider"], row["base_url"]) == (
        result.receipt_id,
        "ok",
        "offline",
        None,
    )
    assert row["tokens_in"] > 0 and row["tokens_out"] > 0
    assert row["cost_estimate"] == 0 and row["output"] == result.output.model_dump(mode="json")


def test_judge_scores_follow_the_input_candidates(engine):
    result = dispatch(
        engine,
        role="blind_judge",
        task="score",
        provider="offline",
        model="offline-1",
        task_input=INPUT,
        output_model=JudgeScores,
    )
    [candidate] = result.output.candidates
    assert candidate.candidateLabel == "甲"
    assert candidate.dimensions.proseQuality.quotes == ["雨声扑面而来。"]


def test_offline_knows_only_its_own_models(engine):
    with pytest.raises(ProviderRejected):
        dispatch(
            engine,
            role="writer",
            task="generate",
            provider="offline",
            model="deepseek-chat",
            task_input=INPUT,
            output_model=StrictDraft,
        )


class Beat(BaseModel):
    model_config = ConfigDict(extra="forbid")
    kind: Literal["plant", "advance", "payoff"]
    weight: Annotated[float, Field(ge=0.5, le=3, multiple_of=0.5)]
    order: Annotated[int, Field(gt=0, lt=10)]


class Outline(BaseModel):
    model_config = ConfigDict(extra="forbid")
    title: Annotated[str, Field(min_length=12, max_length=40)]
    beats: Annotated[list[Beat], Field(min_length=2, max_length=5)]
    hook: str | None
    note: str = "默认"
    flags: dict[str, bool]
    pair: tuple[int, str]


def test_fallback_builds_a_valid_instance_of_an_unknown_model(engine):
    result = dispatch(
        engine,
        role="planner",
        task="draft",
        provider="offline",
        model="offline-1",
        task_input=INPUT,
        output_model=Outline,
    )
    assert len(result.output.beats) >= 2 and len(result.output.title) >= 12


@settings(max_examples=40, deadline=None)
@given(
    st.dictionaries(
        st.text(min_size=1, max_size=8),
        st.one_of(st.integers(-(2**53) + 1, 2**53 - 1), st.text(max_size=20)),
        max_size=4,
    )
)
def test_fallback_is_valid_and_deterministic_for_any_input(task_input):
    first = fallback_instance("planner", "draft", task_input, Outline)
    assert first == fallback_instance("planner", "draft", task_input, Outline)
    Outline.model_validate(first)


def test_a_registered_generator_wins_and_aliases_resolve(engine):
    def verdict(task_input, output_model):
        return {
            "candidates": [
                {
                    "candidateLabel": "注册",
                    "dimensions": {
                        name: {"score": 5.0, "reason": "注册的生成器", "quotes": []}
                        for name in (
                            "settingFidelity",
                            "outlineFidelity",
                            "narrativeTension",
                            "styleConsistency",
                            "proseQuality",
                        )
                    },
                }
            ]
        }

    register_offline_generator("blind_judge", "score", verdict)
    try:
        out = generate_offline("judge", "score", INPUT, JudgeScores)
        assert out["candidates"][0]["candidateLabel"] == "注册"
    finally:
        unregister_offline_generator("judge", "score")
    assert (
        generate_offline("judge", "score", INPUT, JudgeScores)["candidates"][0]["candidateLabel"]
        == "甲"
    )


def test_a_registered_generator_producing_invalid_output_fails_after_repair(engine):
    register_offline_generator("writer", "generate", lambda task_input, model: {"paragraphs": []})
    try:
        with pytest.raises(InvalidOutput):
            dispatch(
                engine,
                role="writer",
                task="generate",
                provider="offline",
                model="offline-1",
                task_input=INPUT,
                output_model=StrictDraft,
            )
    finally:
        unregister_offline_generator("writer", "generate")
    assert only_receipt(engine)["attempts"] == 2


class Coded(BaseModel):
    code: Annotated[str, Field(pattern=r"^[A-Z]{3}-\d{4}$")]


def test_a_model_the_fallback_cannot_satisfy_asks_for_a_generator():
    with pytest.raises(InvalidOutput) as caught:
        fallback_instance("extractor", "extract", INPUT, Coded)
    assert "register_offline_generator" in caught.value.hint


def test_model_mismatch_is_checked_for_offline_too(engine):
    from muse.agents.providers import register_provider, unregister_provider
    from muse.agents.providers.base import ChatReply
    from muse.agents.providers.offline import OfflineProvider

    class Drifting(OfflineProvider):
        def complete(self, request):
            reply = super().complete(request)
            return ChatReply(
                reply.text,
                "offline-2",
                reply.tool_calls,
                reply.finish_reason,
                reply.usage,
                reply.raw,
            )

    register_provider("drifting", Drifting)
    try:
        with pytest.raises(ModelMismatch):
            dispatch(
                engine,
                role="writer",
                task="generate",
                provider="drifting",
                model="offline-1",
                task_input=INPUT,
                output_model=StrictDraft,
            )
    finally:
        unregister_provider("drifting")


@pytest.mark.parametrize("bad", [{"n": 2**60}, {"s": {1, 2}}, ["not", "a", "dict"]])
def test_a_task_input_that_cannot_be_stored_as_json_is_refused(engine, bad):
    from muse.core.errors import InvalidInput

    with pytest.raises(InvalidInput):
        dispatch(
            engine,
            role="writer",
            task="generate",
            provider="offline",
            model="offline-1",
            task_input=bad,
            output_model=StrictDraft,
        )
