"""``json_schema`` hands every caller its own deep copy of the cached schema."""

from __future__ import annotations

import copy

import pytest

from muse.agents import schemas
from muse.agents.schemas import json_schema
from muse.context import WriterDraft
from muse.context.explore.contracts import ExploreDraft
from muse.quality.contracts import DetectorReport


@pytest.mark.parametrize("model", [WriterDraft, ExploreDraft, DetectorReport])
def test_each_caller_gets_an_equal_copy_it_may_change(model):
    first = json_schema(model)
    assert first == model.model_json_schema() == copy.deepcopy(first)
    first["properties"].clear()
    first.setdefault("$defs", {})["changed"] = {"type": "null"}
    second = json_schema(model)
    assert second == model.model_json_schema()
    assert second is not first and second["properties"]


def test_the_copy_shares_what_the_schema_shares_as_deepcopy_does(monkeypatch):
    shared = {"type": "string", "enum": ["甲", "乙"]}
    cached = {"a": shared, "b": [shared, {"c": shared}], "n": [1, 2.5, None, True]}
    monkeypatch.setattr(schemas, "_schema", lambda model: cached)
    got, reference = schemas.json_schema(WriterDraft), copy.deepcopy(cached)
    assert got == reference
    assert got["a"] is got["b"][0] is got["b"][1]["c"]  # as in deepcopy's copy
    assert reference["a"] is reference["b"][0]
    assert got["a"] is not shared and got["a"]["enum"] is not shared["enum"]
