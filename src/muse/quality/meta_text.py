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

Garbled text (``garbled_text``, blocking) is not prose either: the replacement character U+FFFD
and the mojibake a broken decoding leaves (锟斤拷, 烫烫烫, 屯屯屯), control characters,
private-use characters and invisible ones (a zero-width space inside a name hides it from the
name checks). A reply cut or decoded wrongly on its way is not a chapter to accept.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from muse.quality.findings import Finding
from muse.works import (
    CHAPTER_END,
    CHAPTER_TITLE,
    CLOSE_BRACKET,
    NOTE_LINES,
    NOTE_WORDS,
    OPEN_BRACKET,
)

# what assistant chatter speaks of: the chapter and the writing of it
_TASK = r"(?:正文|续写|改写|本章|章节|细纲|大纲|第.{1,8}[章回节])"
# a model offering to write: 「（好的，）我将 / 下面我来 …」
_I_WILL = r"(?:我|下面我|接下来我|那我)(?:将|会|来|就)?"
# anywhere in the body: each pattern is matched against one whole line (stripped); the lines
# that are not the story in a book too (作者的话, 章末套话, 求票 …) are the importer's own
_ANYWHERE: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"^#{1,6}\s*\S.*$"), "Markdown 标题"),
    (
        re.compile(
            r"^(?:-{2,}|\*{3,}|={3,}|_{3,}|(?:\*\s+){2,}\*|(?:-\s+){2,}-"
            r"|[-—=＊*~～·•.。…\s]*(?:分割线|分隔线)[-—=＊*~～·•.。…\s]*)$"
        ),
        "frontmatter 或分隔线",
    ),
    # Chinese prose never opens a line with these ASCII marks (fences, quotes, lists, bold,
    # tags) nor holds Markdown bold anywhere in it (「他**愣住**了」)
    (
        re.compile(
            r"^(?:```|~~~|>\s|[-*+]\s+\S|\*\*[^*]+\*\*[。！]?$|</?[A-Za-z][^>]*>|<!--"
            r"|.*?\*\*[^*\n]{1,40}\*\*"
            # an HTML entity a web page leaves: 「&nbsp;&nbsp;他抬起头」
            r"|.*?&(?:nbsp|amp|lt|gt|quot|apos|[lr]dquo|[lr]squo|hellip|[mn]dash|middot|[ek]msp"
            r"|ensp|#[0-9]{2,5}|#x[0-9a-fA-F]{2,4});)"
        ),
        "Markdown 或网页标记",
    ),
    *NOTE_LINES,
    # a chapter title in the middle of the body: a second chapter or a title line; 「第四回中，…」
    # is prose (the title must stand alone or be followed by a separator and a short name)
    (
        re.compile(
            rf"^(?:\*\*)?{OPEN_BRACKET}{CHAPTER_TITLE}{CLOSE_BRACKET}(?:[\s　：:]+[^，。！？；,.!?;]{{1,30}})?(?:\*\*)?$"
        ),
        "章节标题",
    ),
    # an extra's heading in the body: 「番外：林远舟的童年」「小剧场」「后记」
    (
        re.compile(
            rf"^{OPEN_BRACKET}(?:番外|小剧场|后记|楔子|引子|序章|序言|序幕|尾声|终章|大结局)"
            rf"[0-9０-９一二三四五六七八九十]*{CLOSE_BRACKET}(?:[\s　：:].{{0,30}})?$"
        ),
        "章节标题",
    ),
    # a volume's heading: 「卷二：风起青州」 (「卷二十三的账册摊在桌上」 is prose)
    (
        re.compile(
            rf"^{OPEN_BRACKET}卷[0-9０-９一二三四五六七八九十百千零〇两]+{CLOSE_BRACKET}"
            r"(?:[\s　：:]+[^，。！？；,.!?;]{1,30})?$"
        ),
        "章节标题",
    ),
    # assistant chatter that speaks of the task, on any line (at the start and the end, the
    # shorter shapes of _START and _END too): 「以下是第十二章的正文：」「需要我继续写下一章吗？」
    (
        re.compile(
            r"^(?:(?:好的|当然可以|当然|没问题|可以)[，,！!。~]\s*)?(?:以下|下面)(?:就)?(?:是|为)"
            rf".{{0,16}}{_TASK}"
            rf"|^(?:(?:好的|当然可以|当然|没问题)[，,！!。~]\s*)?这是(?:根据|按照|依据|为你|为您"
            rf"|修改后|改写后|续写的|你要的|您要的).{{0,16}}{_TASK}"
            rf"|^以上(?:就|便)?(?:是|为).{{0,16}}(?:{_TASK}|全部内容)"
            r"|^.{0,8}希望(?:这|本)一?章.{0,12}(?:符合|满足|喜欢|满意)"
            r"|^如(?:果)?(?:需要|有需要).{0,16}(?:调整|修改|改写|续写|风格|下一章).{0,12}"
            r"(?:告诉我|请随时|我可以|我会|我再)"
            r"|^需要我.{0,10}(?:继续|写|改写|续写|调整|修改).{0,12}[吗？?]"
            # 「好的，我将为你续写。」「接下来的情节可以是：……」
            rf"|^(?:(?:好的|当然|没问题|可以)[，,！!。~]?\s*)?{_I_WILL}(?:为你|为您|帮你|帮您)(?:续写|改写|重写)"
            rf"|^(?:好的|当然|没问题)[，,！!。~]?\s*{_I_WILL}(?:续写|改写)"
            r"|^(?:接下来|下一章|后续|之后)的?(?:情节|剧情|故事走向)(?:可以|可能|将会|会|应该)是?[：:]"
        ),
        "说明文字",
    ),
    # a model speaking as one, and content it left out: 「作为一个AI语言模型，我无法……」
    # 「以下内容为AI生成。」「（此处省略一千字）」
    (
        re.compile(
            r"^(?:.{0,8}[，,])?作为(?:一个|一名|一款)?(?:AI|人工智能)(?:语言)?(?:模型|助手)[，,]\s*"
            r"我(?:无法|不能|没有办法|不会|需要|必须|只能)"
            r"|^(?:以下|以上|上述|本章|本文|此)的?(?:内容|文本|正文|章节|文字)?(?:由|为|是)\s*"
            r"(?:AI|人工智能)\s*(?:生成|创作|撰写|辅助)"
            r"|^[（(【\[]\s*此处省略.{0,12}[）)】\]]"
        ),
        "说明文字",
    ),
    # what a structured reply leaves in the body: 「{"candidate_body": "……"}」「"claims": []」
    (re.compile(r'^[{\[]?\s*"[A-Za-z_][A-Za-z0-9_]*"\s*:'), "结构化输出残留"),
    # an English heading a model copies from its training: 「Chapter 5」「CHAPTER 12: The Storm」
    (re.compile(r"^(?:Chapter|CHAPTER)\s+(?:[0-9]+|[IVXLC]+)\b.{0,40}$"), "章节标题"),
)
# inside a line of prose, searched: a bracketed author's note, and a chapter-end formula or a PS
# right after the line's last sentence (「……他转身离去。（本章完）」「……他走了。PS：明天见」)
_END_MARK = r"(?<=[。！？!?…”」』）)\"'])\s*"
_INLINE: tuple[tuple[re.Pattern[str], str], ...] = (
    (
        re.compile(rf"[（(【\[]\s*(?:{NOTE_WORDS})[^）)】\]\n]*[）)】\]]?"),
        "作者的话",
    ),
    (
        re.compile(rf"{_END_MARK}[（(【\[]?\s*{CHAPTER_END}\s*[）)】\]]?[。！!…~～]*\s*$"),
        "章末套话",
    ),
    (re.compile(rf"{_END_MARK}[Pp]\.?\s?[Ss]\.?\s*[：:].*$"), "作者的话"),
)
# the first line of the body only: a title line or assistant chatter
_START: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(rf"^{OPEN_BRACKET}{CHAPTER_TITLE}(?:[\s　：:].{{0,30}})?$"), "章节标题"),
    (
        re.compile(
            # 以下是 … must speak of the task or announce what follows (「下面是一片漆黑的深渊」
            # opens a story)
            rf"^(?:(?:以下|下面)(?:是|为)(?:.{{0,16}}(?:{_TASK}|内容|全文)|[^。！？]{{0,16}}[：:]$)"
            r"|(?:正文|标题|章节名|章名|本章标题)\s*[：:]"
            r"|[【\[]正文[】\]]$|(?:本章)?正文(?:如下|开始)"
            # 「这是第三章」 is chatter, 「这是第三回合了」 and 「这是根据祖上的规矩」 are prose
            r"|这是(?:第[0-9０-９一二三四五六七八九十百千零〇两]{1,6}[章回节](?![合课])|本章|续写|改写"
            rf"|修改后|(?:根据|按照|依据|为你|为您|你要的|您要的).{{0,16}}{_TASK})"
            # 好的/当然/没问题 open a story's line too (好的，这下全完了): chatter only when it
            # speaks of the task
            r"|(?:好的|当然|没问题|可以)(?:可以|的|啦|了)?[，,。！!~].{0,24}"
            r"(?:续写|改写|本章|正文|细纲|以下|下面|为你|为您|根据|第.{1,8}[章回节])"
            r"|(?i:sure|certainly|of course|okay|here(?:'s| is| are)|below is)\b)"
        ),
        "说明文字",
    ),
)
# the last line of the body only: assistant chatter after the story
_END: tuple[tuple[re.Pattern[str], str], ...] = (
    (
        re.compile(
            # 以上/如果需要/我可以 … must speak of the task (「以上是他所知道的全部」, 「如果需要
            # 帮忙，就来找我」 and 「我可以的」 end a story)
            rf"^(?:以上(?:就|便)?(?:是|为).{{0,16}}(?:{_TASK}|内容)|以上[。！!.]?$"
            r"|希望(?:你|您)(?:能)?(?:喜欢|满意)"
            r"|希望(?:这|本)一?章.{0,12}(?:符合|满足|喜欢|满意)"
            r"|(?:如果?|如有)(?:需要|有需要).{0,20}(?:告诉我|请随时|我可以|我会|我再|调整|修改|续写"
            r"|改写|风格)|如需.{0,20}(?:告诉我|调整|修改|续写|改写|风格|继续)"
            r"|需要我.{0,10}(?:继续|写|改写|续写|调整|修改)"
            r"|我可以(?:继续|为你|为您|帮你|帮您|再|根据|按照|调整|修改|改写|续写)"
            r"|(?:请|欢迎)(?:告诉我|指正)|(?:注|备注|说明)[：:]"
            r"|(?:好了|好啦)?[，,]?(?:这一?章|本章)(?:就|先)?(?:写|更)到这里"
            r"|(?i:let me know|i hope|hope you))"
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
            continue
        for pattern, label in _INLINE:
            found = pattern.search(text)
            if found is not None:
                note = found.group().strip()
                findings.append(
                    _finding(body, start + text.index(note, found.start()), note, label)
                )
                break
    return findings


# U+FFFD, C0 and C1 controls but tab and line breaks, private use; invisible format characters
# (zero-width spaces and joiners, bidi controls, word joiners, a BOM or a soft hyphen inside the
# text: 「萧\u200b炎」 reads as 萧炎 and hides the name from every check); mojibake of broken
# decodings
_GARBLED = re.compile(
    "[\ufffd\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ue000-\uf8ff"
    "\u00ad\u180e\u200b-\u200f\u2028\u2029\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff]"
    "|锟斤拷|烫烫烫|屯屯屯"
)


def garbled_findings(body: str) -> list[Finding]:
    """One ``garbled_text`` finding per line holding garbled text, at its first garbled run."""
    findings = []
    for start, text in _lines(body):
        match = _GARBLED.search(text)
        if match is not None:
            at = start + match.start()
            line = _line_of(body, at)
            shown = repr(match.group())[1:-1]  # a control character shown as its escape
            message = f"正文第 {line} 行有乱码、控制字符或不可见字符（{shown}），不是可接受的正文。"
            findings.append(
                Finding(
                    "garbled_text",
                    "high",
                    message,
                    at,
                    at + len(match.group()),
                    match.group(),
                    line,
                )
            )
    return findings


def _lines(body: str) -> Iterator[tuple[int, str]]:
    """(offset of the stripped text, stripped text) of every non-empty line."""
    pos = 0
    for raw in body.split("\n"):
        text = raw.strip()
        if text:
            yield pos + raw.index(text), text
        pos += len(raw) + 1


def _line_of(body: str, at: int) -> int:
    return body.count("\n", 0, at) + 1


def _finding(body: str, start: int, text: str, what: str) -> Finding:
    line = _line_of(body, start)
    return Finding(
        "meta_text",
        "high",
        f"正文第 {line} 行是{what}，不是正文：「{text[:30]}」。",
        start,
        start + len(text),
        text,
        line,
    )
