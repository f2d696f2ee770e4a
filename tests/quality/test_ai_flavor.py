"""AI 味: the style profile's blacklist projected into item 5 (prevent), and the candidate
checked against it (diagnose): located, counted advice that never blocks (issue 18)."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from muse.context.prevention import prevention_from_style
from muse.context.round_order import round_inputs, writer_input
from muse.quality import mechanical
from muse.quality.ai_flavor import ai_flavor_findings, ai_flavor_summary

STYLE = {
    "personViewpoint": "第三人称有限视角",
    "sentenceStyle": "短句为主",
    "diction": "字段存疑：样本不足",
    "dialogueStyle": "对话简短",
    "aiBlacklist": ["不禁", "嘴角勾起一抹弧度", " "],
}


@dataclass(frozen=True)
class Case:
    rule: str
    style: dict | None
    blacklist: tuple[str, ...] | None  # None: no projection
    rules: tuple[str, ...] = ()


CASES = (
    Case("no style profile, no projection", None, None),
    Case(
        "blacklist verbatim, confirmed fields as rules, doubtful ones left out",
        STYLE,
        ("不禁", "嘴角勾起一抹弧度"),
        ("叙事视角：第三人称有限视角", "句式：短句为主", "对话：对话简短"),
    ),
    Case(
        "a doubtful blacklist is no list",
        {**STYLE, "aiBlacklist": "字段存疑：待定"},
        (),
        ("叙事视角：第三人称有限视角", "句式：短句为主", "对话：对话简短"),
    ),
)


@pytest.mark.parametrize("case", CASES, ids=[c.rule for c in CASES])
def test_prevention_projection(case: Case) -> None:
    prevention = prevention_from_style(case.style)
    if case.blacklist is None:
        assert prevention is None
        return
    assert prevention is not None
    assert prevention.ai_blacklist == case.blacklist and prevention.style_rules == case.rules


def test_item_5_carries_the_projection_and_the_candidate_is_diagnosed(checked):
    context = checked.context.model_copy(update={"prevention": prevention_from_style(STYLE)})
    item5 = next(i for i in round_inputs(context) if i.position == 5)
    assert item5.content["prevention"]["aiBlacklist"] == ["不禁", "嘴角勾起一抹弧度"]
    assert "prevention" in writer_input(context)
    body = "他不禁一怔。\n她嘴角勾起一抹弧度，又不禁笑了。"
    output = checked.output.model_copy(update={"candidate_body": body})
    hits = ai_flavor_findings(context, body)
    assert [(f.quote, f.line, f.severity) for f in hits] == [
        ("不禁", 1, "low"),
        ("嘴角勾起一抹弧度", 2, "low"),
        ("不禁", 2, "low"),
    ]
    assert all(body[f.start : f.end] == f.quote for f in hits)
    assert ai_flavor_summary(hits) == {"hits": 3, "phrases": {"不禁": 2, "嘴角勾起一抹弧度": 1}}
    findings = mechanical.check(context, output, [])
    assert {f.kind for f in findings if f.severity == "high"}.isdisjoint({"ai_flavor"})
    assert output.candidate_body == body  # diagnosed, never edited


def test_without_a_profile_nothing_is_projected_or_found(checked):
    assert "prevention" not in checked.context.wire()
    assert ai_flavor_findings(checked.context, "他不禁一怔。") == []
