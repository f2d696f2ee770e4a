"""Lines that are not the story (作者的话, 本章完, 求月票, a site's footer): one vocabulary for the
importer and the gate.

Serialised web novels, and the TXT files download sites make of them, carry lines that are not
the story: 「（作者的话：……）」, 「PS：……」, 「求月票」 between chapters, 「——本章完——」,
「--(本章结束)-多多电子书--」, 「更多精彩小说请访问 www.…」. Imported as prose they would reach the
writer's context and the style profile as if they were the book; written by a model they are no
chapter to accept. :func:`note_label` names such a line (whole lines only, never part of a line of
prose) and the mechanical gate (``muse.quality.meta_text``) blocks the same shapes; at import,
:func:`split_notes` removes them:

* an author's note: a line opening with 作者的话 / 作者有话说 / 作者按 … (bracketed or not; an
  opening bracket that is not closed on its line runs on until the line that closes it), or
  with PS / P.S.;
* a chapter-end formula standing alone: 本章完, 本章结束, 未完待续, 第十章完, with dashes or
  brackets around it and a site's name after it (「--(本章结束)-多多电子书--」);
* a short plea for votes or support (求月票, 求推荐票, 求收藏 …), thanks for them (感谢…的打赏),
  a word count (本章约3200字);
* a site's advertisement: a web address with a word of the trade (访问, 下载, 电子书, 小说网,
  最新章节 …), a line that is only a web address, or words only a site's page says (手机用户请浏览,
  最快更新, 无弹窗);
* the serial's schedule in a short line that speaks of chapters or readers (今天两更，晚上还有一章;
  明天请假，后天补更), an update time (更新时间：2023-05-01), a byline (作者：某某);
* a note on the writing, not the story: a label such as 写作说明, 本章要点, 前情提要, 下一章 (with a
  colon or in brackets), or an annotation (注：, 说明：) that speaks of the chapter, a 伏笔 or the
  reader (（注：此处为伏笔）); 完 or 终 alone in brackets (（完）).

What is not one: a classic chapter's own closing formula (且听下回分解 is the story's voice), 本章完
inside dialogue or a title (「“本章完了吗？”他问」, 《本章完》), a plea inside prose (他求了一张船票,
他去求个推荐信), a web address a character types (他输入了www.example.com), a night watch
(今晚三更，城东见), 完了 standing alone.

The import report lists every note (``--dry-run`` shows them first); with ``--keep-notes`` the
author keeps them in the prose. Removed notes are kept with the chapter's import attribution.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

_NUM = "0-9０-９一二三四五六七八九十百千零〇两"
OPEN_BRACKET = (
    r"[（(【\[〔「『]?\s*"  # a note is often bracketed: 「（作者的话：……）」「【本章完】」
)
CLOSE_BRACKET = r"\s*[）)】\]〕」』]?"
CHAPTER_TITLE = rf"第[{_NUM}]+[章回节卷]"
# the words that open an author's note, and a chapter-end formula (whole lines and glued ones)
NOTE_WORDS = "作者的话|作者有话说|作者有话要说|作者题外话|作者按|作者注|作者留言"
CHAPTER_END = (
    rf"(?:本章完|本章结束|全文完|全书完|未完待续|待续|{CHAPTER_TITLE}[·・\s　]?(?:完|终|结束)"
    rf"|卷[{_NUM}]+[·・\s　]?[完终])"
)
_CLOSERS = "）)】]"
_DASHES = r"[-—～~\s]*"
_URL = (
    r"(?:https?://|www\.)[A-Za-z0-9./?=&_%#-]+"
    r"|(?<![A-Za-z0-9.])(?:[A-Za-z0-9-]+\.)+(?:com|net|org|cn|cc|info|la|me|tw|top|xyz)"
    r"(?![A-Za-z0-9])"
)
# words of a site's advertisement beside its address
_TRADE = (
    r"访问|下载|电子书|小说网|文学网|书城|书网|书库|[Tt][Xx][Tt]|最新章节|全文阅读|免费阅读|手机阅读"
    r"|阅读网|收藏本站|本站|首发|网址|笔趣阁|趣阁|书屋|书阁|中文网"
)
# labels of notes on the writing itself (a model's or an author's), never of the story
_WRITING_LABELS = (
    r"写作说明|创作说明|写作思路|创作思路|写作要点|修改说明|改写说明|续写说明|本章要点|本章看点"
    r"|本章提要|本章概要|本章总结|本章小结|本章简介|章节总结|章节概要|内容提要|剧情梗概|下章预告"
    r"|下一章预告|下一章|本章预告|下集预告|预告|上一章回顾|上章回顾|前情提要|前情回顾|注释"
    # the plan's own words: 「【细纲】……」「伏笔：玉佩发光」
    r"|本章细纲|本章大纲|细纲|大纲|卷纲|伏笔|人设"
)
# each pattern is matched against one whole line (stripped)
NOTE_LINES: tuple[tuple[re.Pattern[str], str], ...] = (
    (
        re.compile(
            rf"^{OPEN_BRACKET}(?:{NOTE_WORDS}|作者感言|上架感言|完结感言|写在最后(?=\s*[：:])"
            r"|题外话|写在(?:前面|后面|最后)的话|编者按|编者注|[Pp]\.?\s?[Ss]\.?(?![A-Za-z]))"
            r"(?:\s*[：:，,）)】\]]|\s|$|(?<=\.)|(?<=[Ss])(?=[\u4e00-\u9fff]))"
        ),
        "作者的话",
    ),
    (
        re.compile(
            rf"^{_DASHES}{OPEN_BRACKET}{CHAPTER_END}[。！!…~～]*{CLOSE_BRACKET}"
            rf"(?:[-—～~]+[^\s，。！？“”\"]{{1,12}})?[-—～~\s。！!…]*$"
            # 完 or 终 alone only in brackets: 「完了。」 is a line of prose
            rf"|^{_DASHES}[（(【\[〔]\s*(?:全文|全书)?[完终]\s*[）)】\]〕]{_DASHES}$"
            # a site's footer after the formula: 「（未完待续。如果您喜欢这部作品，欢迎您来起点投
            # 推荐票、月票，您的支持，就是我最大的动力。）」
            rf"|^{OPEN_BRACKET}{CHAPTER_END}[。，,！!].{{0,80}}(?:推荐票|月票|订阅|打赏|动力).*$"
            # 「本章完，下章预告：……」「（本章完，请继续阅读下一章）」
            rf"|^{OPEN_BRACKET}{CHAPTER_END}[。，,！!]\s*(?:下一?章|下回|预告|请继续|继续阅读).{{0,60}}$"
            # 「【下一章更精彩】」「更多精彩，尽在下一章」
            rf"|^{OPEN_BRACKET}(?:下一章|下章|明天|明日)更精彩{CLOSE_BRACKET}[！!。~～…]*$"
            r"|^(?=.{0,30}+$)更多精彩.{0,6}(?:下一章|下章|明天|明日|本站)"
        ),
        "章末套话",
    ),
    (
        re.compile(
            r"^.{0,16}求(?:一波|一下|个|张|点|些|大家的|各位的)?"
            r"(?:保底月票|月票|推荐(?![信人])票?|收藏|订阅|打赏|票票?|追读|书评|评论)"
            r"[！!。，,~～\s\S]{0,40}$"
            r"|^.{0,20}(?:月票|打赏)加更.{0,30}$"
            # 「新书求支持！」: a short line of its own (他向朝廷求支持，… is a sentence)
            r"|^.{0,6}求(?:支持|关注|鼓励|包养)[！!。~～…\s]*$"
        ),
        "求票",
    ),
    (
        re.compile(
            r"^[^“”\"：:]{0,6}(?:感谢|谢谢|多谢).{0,30}"
            r"(?:打赏|月票|推荐票|订阅|盟主|舵主|万赏|催更|鞠躬|书友|读者|追读).{0,30}$"
            # 「感谢大家的支持！」 standing alone (「感谢上苍，他还活着」 is prose)
            r"|^(?=.{0,24}+$)(?:感谢|谢谢|多谢)(?:大家|各位|亲们).{0,6}(?:支持|厚爱|陪伴)"
        ),
        "致谢读者",
    ),
    (
        re.compile(
            rf"^{OPEN_BRACKET}(?:(?:本章|全文|正文|本文)?字数(?:统计)?[：:]?\s*(?:约|共|计)?\s*[0-9０-９]+"
            r"|(?:本章|全文|正文|本文)(?:约|共|计)\s*[0-9０-９]+\s*[千万]?字).*$"
        ),
        "字数说明",
    ),
    (
        re.compile(
            # 「今天两更，晚上还有一章。」「明天请假，后天补更。」: the serial's schedule, in a
            # short line that speaks of chapters or readers (「今晚三更，城东见。」 is a meeting,
            # 「往火里加更多的柴」 a fire)
            r"^(?=.{0,40}+$)(?:.*(?:断更|补更|爆更)|(?=.*(?:章|书友|读者|订阅|月票))"
            r".*(?:加更(?![多加好大深远快小高长重强新])"
            r"|(?:今天|今日|明天|明日|今晚|晚上|稍后|本周)"
            rf".{{0,4}}[{_NUM}]+更(?![天时夜半鼓的次])))"
            rf"|^{OPEN_BRACKET}(?:更新时间|发布时间|上传时间|更新日期|发表时间)\s*[：:]?\s*[0-9０-９]"
            # the serial's count of the day's updates standing alone: 「第二更送到！」「（第一更）」
            rf"|^{OPEN_BRACKET}(?:今天|今日|本日)?的?第[{_NUM}]+更"
            rf"(?:送到|送上|奉上|到了|来了|到|完毕|完成)?[！!。~～…]*{CLOSE_BRACKET}$"
            rf"|^{OPEN_BRACKET}(?:今天|今日|本日)的?[{_NUM}]+更(?:完毕|完成|结束|送上|奉上)"
            rf"[！!。~～…]*{CLOSE_BRACKET}$"
            # 「今天请假一天，明天补上。」「请假条」 (「今天请假，去城里看看母亲」 is a day off)
            r"|^(?=.{0,40}+$)(?:今天|今日|明天|明日|本周|这周|周末).{0,4}请假"
            r"(?=.*(?:更|章|补上|大家|书友|读者))"
            r"|^[（(【\[]?\s*请假(?:条|一天|通知)\s*[）)】\]]?[！!。]*$"
            # 「今天就更到这里，明天见。」 (the fire 「烧得更旺」 is no update)
            r"|^(?=.{0,30}+$).*(?:就|先|只)更(?:新)?到这里"
            # 「今天有事，只有一更。」「第一更，还有一更晚点。」「更新晚了，抱歉。」「【加更】」
            # (「离天亮还有三更」 is the night: only one or two updates, after a day's word)
            r"|^(?=.{0,30}+$)(?:今天|今日|明天|明日|本周|这周).{0,8}(?:只有|仅有|就|先|还有)"
            r"[一两二1-2１-２]更(?![天时夜半鼓的次])"
            rf"|^(?=.{{0,40}}+$)第[{_NUM}]+更[，,。！!]"
            r"(?=.*(?:更|晚点|稍后|补上|奉上|送上|抱歉|书友))"
            r"|^(?=.{0,30}+$)(?:今天|今日|昨天|最近)?的?更新(?:晚了|迟了|慢了|少了|有点晚|会晚)"
            r"|^[（(【\[]\s*加更[^）)】\]]{0,20}[）)】\]]$"
        ),
        "更新说明",
    ),
    (
        re.compile(
            rf"^{OPEN_BRACKET}作者\s*[：:]\s*[^，。！？,.!?\s）)】\]]{{1,16}}{CLOSE_BRACKET}$"
        ),
        "作者署名",
    ),
    (
        re.compile(
            # a label of the writing, not the story: 「【写作说明】本章…」「本章要点：…」「下一章：…」
            rf"^[（(【\[〔]\s*(?:{_WRITING_LABELS})\s*[）)】\]〕]"
            rf"|^(?:{_WRITING_LABELS})\s*[：:]"
            # an annotation about the writing: 「注：本章地名均为虚构」「（注：此处为伏笔）」
            rf"|^{OPEN_BRACKET}(?:注|备注|说明|总结)\s*[：:].*?"
            r"(?:本章|本文|本书|本回|此处|伏笔|读者|作者|字数|设定|细纲|大纲|正文|续写|改写"
            r"|虚构|杜撰|史料|原文|出处|典故|引自|出自)"
            # a footnote's number opening the line: 「[1]青州，古九州之一。」
            r"|^[\[［〔【][0-9０-９]{1,3}[\]］〕】]"
            # where the text's verses come from, what the book is: 「（文中诗词引自《全唐诗》）」
            r"|^[（(【\[]\s*(?:文中|本文|本章|书中|本书).{0,30}(?:引自|出自|摘自|参考|借鉴)"
            r"[^）)】\]]*[）)】\]]$"
            r"|^(?=.{0,40}+$)(?:本文|本书|本故事|本小说|本章|本作品)(?:内容|情节|故事)?纯属虚构"
            r"|^(?=.{0,40}+$).{0,12}如有雷同.{0,4}纯属巧合"
            # a bracketed aside on the chapter's writing: 「（这一章写得不好，见谅）」
            r"|^[（(【\[]\s*(?:这一?章|本章).{0,30}(?:写|更新|见谅|抱歉|请假|卡文)[^）)】\]]*[）)】\]]$"
        ),
        "写作说明",
    ),
    (
        re.compile(
            # (the length first, then a Latin letter, the trade's words, the address last: a line
            # of prose is refused before the address is looked for at each of its positions)
            rf"^(?=.{{0,80}}+$)(?=[^A-Za-z]*[A-Za-z])(?=.*?(?:{_TRADE}))(?=.*?(?:{_URL}))"
            rf"|^{OPEN_BRACKET}(?:{_URL}){CLOSE_BRACKET}$"
            # the same without an address: words only a site's page says
            r"|^(?=.{0,84}+$).{0,30}(?:手机用户请|更优质的阅读体验|请记住本(?:站|书)|最快更新|无弹窗"
            r"|全文字手打|手打(?:更新|首发)|一秒记住(?:本站|本书|[【\[]|网址|域名|地址)|记住本站"
            r"|本站(?:地址|域名|网址)"
            r"|章节错误[，,]?点此|点此举报|加入书签[，,]?(?:方便|以便)|方便下次阅读).{0,40}$"
            # a site's own words: 「本书首发起点中文网」「（本章未完，请点击下一页继续阅读）」, its
            # page's links 「上一章 目录 下一章」
            r"|^(?=.{0,40}+$)(?:本书|本作品|本小说)?首发(?:于|自|在)?.{0,12}(?:网|站|[Aa][Pp][Pp]|平台)"
            r"|^[（(【\[]?\s*本章未完.{0,4}(?:请|点击).{0,20}$"
            r"|^(?=.{0,40}+$).{0,16}(?:由|在|于).{0,12}(?:网|站|[Aa][Pp][Pp]|平台)(?:独家)?首发"
            r"|^(?=.{0,40}+$).{0,4}(?:看|阅读)?最新章节.{0,4}(?:请到|请上|请访问|尽在|就到)"
            r"|^(?=.{0,50}+$)(?:本小说|本书|本文|本作品|本电子书).{0,8}(?:网友|书友)上传"
            r"|^(?=.{0,50}+$).{0,24}(?:仅供试读|仅供交流|下载后24小时内删除)"
            # the author's readers' group, another book of the author's or a friend's
            r"|^(?=.{0,60}+$).{0,8}(?:书友群|读者群|粉丝群|[Qq][Qq]群|微信群|群号)[：:\s]*[0-9０-９]"
            r"|^(?=.{0,60}+$).{0,6}(?:推荐|安利).{0,10}(?:新书|好书|的书)《"
            r"|^(?=.{0,60}+$)(?:新书|老书)《[^》]{1,20}》.{0,12}(?:发布|上传|开更|连载|支持)"
            r"|^(?=.{0,60}+$).*书号\s*[：:]?\s*[0-9０-９]{4,}"
            # a plea in the author's voice: 「码字不易，喜欢的话点个赞吧。」
            r"|^(?=.{0,40}+$)码字不易|^(?=.{0,40}+$).{0,8}喜欢的话.{0,6}(?:点赞|点个赞|收藏|投票|推荐)"
            r"|^(?:上一[章页]|目录|下一[章页]|返回书页|返回目录|加入书签)"
            r"(?:[\s|｜/、]+(?:上一[章页]|目录|下一[章页]|返回书页|返回目录|加入书签|书架))+$"
        ),
        "网址或网站广告",
    ),
    # what a page had in place of a picture: 「[图片]」「【插图】」
    (
        re.compile(r"^[\[【（(〔]\s*(?:图片|插图|插画|配图|图)\s*[0-9０-９]*\s*[\]】）)〕]$"),
        "图片占位",
    ),
)


def note_label(line: str) -> str | None:
    """What kind of line that is not the story ``line`` is (作者的话, 章末套话 …), or None."""
    stripped = line.strip()
    return next((label for pattern, label in NOTE_LINES if pattern.match(stripped)), None)


@dataclass(frozen=True)
class AuthorNote:
    chapter: int
    line: int  # 1-based line within the chapter body
    text: str
    kind: str  # what the line is: a label of NOTE_LINES (作者的话, 章末套话, 求票 …)


def kinds_summary(notes: list[AuthorNote] | tuple[AuthorNote, ...]) -> str:
    """「作者的话 2、章末套话 19」: how many notes of each kind, in order of first appearance."""
    return "、".join(f"{kind} {count}" for kind, count in Counter(n.kind for n in notes).items())


def _opens_unclosed(line: str) -> bool:
    stripped = line.strip()
    return stripped[:1] in "（(【[" and not stripped.endswith(tuple(_CLOSERS))


def split_notes(chapter: int, body: str) -> tuple[str, list[AuthorNote]]:
    """``body`` without its author-note lines, and the notes (in order)."""
    kept: list[str] = []
    notes: list[AuthorNote] = []
    lines = body.split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        kind = note_label(line)
        if kind is None:
            kept.append(line)
            i += 1
            continue
        start, block = i, [line]
        if kind == "作者的话" and _opens_unclosed(line):
            while i + 1 < len(lines) and not lines[i].strip().endswith(tuple(_CLOSERS)):
                i += 1
                block.append(lines[i])
        notes.append(AuthorNote(chapter, start + 1, "\n".join(b.strip() for b in block), kind))
        i += 1
    if not notes:
        return body, []
    return _tidy("\n".join(kept)), notes


def _tidy(text: str) -> str:
    """No run of blank lines left where a note was, no blank edge."""
    return re.sub(r"\n{3,}", "\n\n", text).strip("\n")
