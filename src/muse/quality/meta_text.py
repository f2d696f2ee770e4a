"""Meta text anywhere in a candidate: what is not the chapter's prose (spec 000 §9, §7 output contract).

A candidate body is prose only (frontmatter is not allowed by the output contract). A model, or a
writer imitating web-novel habits, leaves things that are not prose: an author's note
(作者的话, PS), chapter-end formulas of serial sites (本章完, 求月票, 未完待续), markdown headings
and frontmatter, and assistant chatter (以下是…, 好的，…) at the start or the end. Each is a
blocking ``meta_text`` finding at its line: it is locatable and certain.

What is not meta text: a first line that opens the story with 这是… or 好的，… (这是陆沉来到青州的
第三天), a body line that merely starts like a heading (第四回中，…), a classic
chapter's own closing formula (且听下回分解 is the story's voice, not the site's), a dash in a
dialogue. Lines are judged whole: a pattern must cover the line's shape, not just occur in it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from muse.quality.findings import Finding

_NUM = "0-9０-９一二三四五六七八九十百千零〇两"
# anywhere in the body: each pattern is matched against one whole line (stripped)
_ANYWHERE: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"^#{1,6}\s*\S.*$"), "Markdown 标题"),
    (re.compile(r"^(?:-{3,}|\*{3,}|={3,})$"), "frontmatter 或分隔线"),
    (
        re.compile(r"^(?:作者的话|作者有话说|作者按|作者注|题外话|[Pp]\.?[Ss]\.?)\s*[：:].*$"),
        "作者的话",
    ),
    (
        re.compile(
            r"^[（(【\[]?\s*(?:本章完|本章结束|全文完|未完待续|待续)\s*[）)】\]]?[。！!…]*$"
        ),
        "章末套话",
    ),
    (
        re.compile(
            r"^.{0,12}求(?:月票|推荐票?|收藏|订阅|打赏|票|追读|评论)[！!。，,~～\s\S]{0,40}$"
        ),
        "求票",
    ),
    (re.compile(r"^[（(【\[]?\s*(?:本章)?字数[：:]\s*[0-9０-９]+.*$"), "字数说明"),
)
# the first line of the body only: a title line or assistant chatter
_START: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(rf"^第[{_NUM}]+[章回节卷](?:[\s　：:].{{0,30}})?$"), "章节标题"),
    (
        re.compile(
            r"^(?:以下是|下面是|下面为|以下为"
            r"|这是(?:第.{1,8}[章回节]|本章|续写|改写|修改后|为你|为您|你要的|您要的|根据)"
            # 好的/当然/没问题 open a story's line too (好的，这下全完了): chatter only when it
            # speaks of the task
            r"|(?:好的|当然|没问题)[，,。！!].{0,24}(?:续写|改写|本章|正文|细纲|以下|下面|为你|为您|根据))"
        ),
        "说明文字",
    ),
)
# the last line of the body only: assistant chatter after the story
_END: tuple[tuple[re.Pattern[str], str], ...] = (
    (
        re.compile(
            r"^(?:以上(?:就)?是|希望(?:你|您)喜欢|如(?:果)?(?:需要|有需要)|如需|需要我|我可以|"
            r"(?:请|欢迎)(?:告诉我|指正))"
        ),
        "说明文字",
    ),
)


def meta_text_findings(body: str) -> list[Finding]:
    """One ``meta_text`` finding per line that is not prose."""
    lines = list(_lines(body))
    findings = []
    for index, (start, text) in enumerate(lines):
        rules = list(_ANYWHERE)
        if index == 0:
            rules += _START
        if index == len(lines) - 1:
            rules += _END
        what = next((label for pattern, label in rules if pattern.match(text)), None)
        if what is not None:
            findings.append(_finding(body, start, text, what))
    return findings


def _lines(body: str) -> Iterator[tuple[int, str]]:
    """(offset of the stripped text, stripped text) of every non-empty line."""
    pos = 0
    for raw in body.split("\n"):
        text = raw.strip()
        if text:
            yield pos + raw.index(text), text
        pos += len(raw) + 1


def _finding(body: str, start: int, text: str, what: str) -> Finding:
    line = body.count("\n", 0, start) + 1
    return Finding(
        "meta_text",
        "high",
        f"正文第 {line} 行是{what}，不是正文：「{text[:30]}」。",
        start,
        start + len(text),
        text,
        line,
    )
