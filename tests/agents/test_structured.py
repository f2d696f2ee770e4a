"""Pieces of the structured-output path that need no server."""

from __future__ import annotations

import pytest
from pydantic import BaseModel, ConfigDict

from muse.agents.errors import ProviderConfigError
from muse.agents.providers.base import Capabilities
from muse.agents.structured import (
    RetryPolicy,
    ensure_json_word,
    extract_json_text,
    is_strict_compatible,
    output_mode_for,
)
from tests.agents.role_outputs import ROLE_OUTPUTS


@pytest.mark.parametrize(
    "text, expected",
    [
        ('{"a": 1}', '{"a": 1}'),
        ('```json\n{"a": 1}\n```', '{"a": 1}'),
        ('```\n{"a": 1}\n```', '{"a": 1}'),
        ('结果如下：{"a": 1}。', '{"a": 1}'),
        ('\ufeff  {"a": 1}  ', '{"a": 1}'),
    ],
)
def test_extract_json_text(text, expected):
    assert extract_json_text(text) == expected


# The model-facing shapes with every field required go out as strict json_schema; the writer's
# draft (claims, requests and declarations default to empty) and the planning stages (optional
# fields) are sent non-strict.
STRICT = {
    ("writer", "explore"): True,
    ("writer", "generate"): False,
    ("planner", "draft"): False,
    ("extractor", "extract"): True,
    ("detector", "check"): True,
    ("judge", "score"): True,
}


@pytest.mark.parametrize("role, task", sorted(ROLE_OUTPUTS))
def test_which_production_outputs_are_strict_json_schema_compatible(role, task):
    model = ROLE_OUTPUTS[(role, task)]
    assert is_strict_compatible(model.model_json_schema()) is STRICT[(role, task)]


def test_a_model_with_defaults_is_sent_non_strict():
    class Loose(BaseModel):
        model_config = ConfigDict(extra="forbid")
        a: int
        b: str = "x"

    mode, schema = output_mode_for(Capabilities(supports_json_schema=True), Loose, "p")
    assert mode == "json_schema" and schema["strict"] is False and schema["name"] == "Loose"


def test_a_provider_without_any_json_output_is_a_clear_error():
    with pytest.raises(ProviderConfigError):
        output_mode_for(
            Capabilities(supports_json_schema=False, supports_json_mode=False),
            ROLE_OUTPUTS[("writer", "generate")],
            "p",
        )


def test_the_word_json_is_added_only_where_needed():
    caps = Capabilities(json_mode_requires_word_json=True)
    plain = [{"role": "user", "content": "你好"}]
    assert "JSON" in ensure_json_word(plain, caps, "json_object")[-1]["content"]
    assert ensure_json_word(plain, caps, "json_schema") == plain
    assert ensure_json_word(plain, Capabilities(), "json_object") == plain


def test_backoff_is_bounded_and_honours_retry_after():
    policy = RetryPolicy(base_delay_s=1, max_delay_s=5)
    assert [policy.delay(n, None) for n in (1, 2, 3, 4)] == [1, 2, 4, 5]
    assert policy.delay(1, 3.0) == 3.0 and policy.delay(1, 600) == 5
