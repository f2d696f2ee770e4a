"""The prevent projection of a round (spec 001 §2.2 prevent-ai-flavor, §2.3 item 5).

The confirmed style profile holds an AI 味 blacklist (phrases that read as machine prose) and the
book's own style (sentences, diction, dialogue, viewpoint). Item 4 of the round shows the profile
as it is; item 5 turns it into constraints the writer must respect: the blacklist verbatim, and
each confirmed style field as a rule. A field still marked 「字段存疑：…」 is no rule. Nothing here
edits text: the same blacklist is diagnosed on the candidate by ``quality.ai_flavor``.
"""

from __future__ import annotations

from typing import Any

from muse.context.contracts import Prevention

DOUBT = "字段存疑"
_RULES = (
    ("personViewpoint", "叙事视角"),
    ("sentenceStyle", "句式"),
    ("diction", "用词"),
    ("dialogueStyle", "对话"),
)
NOTE = "不得使用黑名单中的表达；按本书文风写。检查只报告命中，不改正文。"


def prevention_from_style(style: dict[str, Any] | None) -> Prevention | None:
    """Item 5's AI-flavour projection of ``style`` (the context's style constraints), or None."""
    if not style:
        return None
    blacklist = style.get("aiBlacklist")
    phrases = (
        tuple(p.strip() for p in blacklist if p.strip()) if isinstance(blacklist, list) else ()
    )
    rules = tuple(
        f"{label}：{style[key]}"
        for key, label in _RULES
        if isinstance(style.get(key), str) and style[key] and not style[key].startswith(DOUBT)
    )
    if not phrases and not rules:
        return None
    return Prevention(ai_blacklist=phrases, style_rules=rules, note=NOTE)
