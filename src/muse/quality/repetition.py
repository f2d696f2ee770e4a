"""Whole-chapter repetition: degenerate output blocks, milder repetition is advice (spec 000 §9).

A model that loops writes the same paragraphs or sentences again and again; a candidate of 33
paragraphs with 11 distinct ones is not a chapter. Five measures, each with a blocking threshold
for output that is degenerate beyond doubt and an advisory one below it:

* repeated paragraphs (exact, after stripping): blocking when under 70 % of the substantial
  paragraphs are distinct (and at least 3 are copies), advice from one copied paragraph;
* repeated sentences: blocking when one sentence of 8+ characters occurs 5 times or more,
  advice from 3 times;
* the n-gram repetition ratio (share of the body's character 12-grams that occur more than once;
  real chapters of the corpus novels: under 1 %)
  against the book's own baseline (the same ratio over the previous chapters in the context, so a
  book with formulaic prose is judged by its own habits): blocking above
  max(0.5, 3 × baseline), advice above max(0.3, 2 × baseline);
* the opening of the chapter repeating the previous chapter's opening: blocking when the whole
  first paragraph (40+ characters) is the same, advice when the first sentence is;
* prose copied from the book: the share of the body's 12-grams that are the book's own prose as
  the context shows it (a model handing back its evidence as the new chapter): blocking from
  ``COPY_BLOCK``, advice from ``COPY_ADVICE``, located at the longest copied passage (real
  chapters of the corpus novels share at most 0.5 % with their previous five chapters);
* a loop: one short unit (1–8 characters holding a letter or a Han character) written back to
  back, 啊啊啊… or 不要走不要走…, which no other measure sees when it is a small share of the
  chapter: blocking from ``LOOP_BLOCK`` repetitions covering 40+ characters, advice from
  ``LOOP_ADVICE`` covering 16+ (the corpus novels' longest run is 4: 「走，走，走，走」;
  a web novel's 哈哈哈哈哈哈 is under the advice bar); or a longer unit (9–120 characters, no
  sentence end inside it to be counted by) written back to back: advice from 3 copies, blocking
  from 5 (「……「你快，快──」曹先生害了怕……」 40 times; the corpus novels never write one twice).

Thresholds are deliberately far from real prose: on the two corpus novels (bench/detector_recall.py)
no untouched chapter reaches an advisory threshold.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator, Sequence

from muse.context import WriterContext
from muse.quality.findings import Finding

MIN_PARAGRAPH = 10  # characters: shorter lines ("好！") repeat in any dialogue
MIN_SENTENCE = 8
NGRAM = 12
_SENTENCE = re.compile(r"[^。！？!?…\n]+[。！？!?…]*[”’」』]?")
_SPACE = re.compile(r"\s+")
_CLOSING = re.compile(r"[。！？!?…”’」』]+$")
_ENDED = re.compile(r"[。！？!?…][”’」』]*$")  # a sentence that ends (not one cut off: 「快──」)
LOOP_ADVICE, LOOP_BLOCK = 8, 20  # back-to-back repetitions of one unit
# share of the body's 12-grams found in the book's prose the context shows (real chapters of the
# corpus novels against their previous five chapters: at most 0.5 %)
COPY_ADVICE, COPY_BLOCK = 0.15, 0.4
_LOOP = re.compile(rf"(.{{1,8}}?)\1{{{LOOP_ADVICE - 1},}}", re.S)
# a unit of 9-120 characters written 3 times back to back is advice, 5 times blocks (the corpus
# novels never write one twice in a row)
LONG_LOOP_ADVICE, LONG_LOOP_BLOCK = 3, 5
_LONG_LOOP = re.compile(rf"([^\n]{{9,120}}?)\1{{{LONG_LOOP_ADVICE - 1},}}")
_WORDY = re.compile(r"[^\W\d_]")  # a letter or a Han character: not a run of dots or spaces


def repetition_findings(context: WriterContext, body: str) -> list[Finding]:
    return body_repetition(body, _baseline_texts(context), _previous_opening(context))


def body_repetition(
    body: str, baseline_texts: Sequence[str] = (), previous_opening: str | None = None
) -> list[Finding]:
    """The measures of the module docstring; ``baseline_texts``: the book's previous chapters
    as the context shows them; ``previous_opening``: the previous chapter's opening."""
    # the baseline's grams, cut once for both measures that read them
    shown = [(len(t), _gram_list(_SPACE.sub("", t))) for t in baseline_texts]
    findings = _paragraphs(body) + _sentences(body)
    findings += _ngrams(body, shown)
    findings += _opening(body, previous_opening)
    findings += _loops(body)
    findings += _copied(body, shown)
    return findings


def _paragraphs(body: str) -> list[Finding]:
    paragraphs = [p.strip() for p in body.split("\n") if len(p.strip()) >= MIN_PARAGRAPH]
    counts = Counter(paragraphs)
    copies = sum(n - 1 for n in counts.values())
    if not copies:
        return []
    worst, times = counts.most_common(1)[0]
    distinct = len(counts) / len(paragraphs)
    severity = "high" if distinct < 0.7 and copies >= 3 else "medium"
    start = body.find(worst)
    message = (
        f"段落重复：{len(paragraphs)} 个段落中只有 {len(counts)} 个互不相同，"
        f"最多的一段出现 {times} 次。"
    )
    return [_finding(body, severity, message, start, worst)]


def _sentences(body: str) -> list[Finding]:
    # a sentence is counted by its words, whatever closes it: 「……滋味。」 and 「……滋味！」 are one
    # (the length bar is on the sentence as written: 「不会，我教给你！」」 is one of 8+)
    sentences = (_SPACE.sub("", s) for s in _SENTENCE.findall(body))
    counts = Counter(_CLOSING.sub("", s) for s in sentences if len(s) >= MIN_SENTENCE)
    if not counts:
        return []
    worst, times = counts.most_common(1)[0]
    if times < 3:
        return []
    severity = "high" if times >= 5 else "medium"
    message = f"句子重复：「{worst[:20]}」在正文中出现 {times} 次。"
    return [_finding(body, severity, message, body.find(worst), worst)]


def repeated_ngram_ratio(text: str, n: int = NGRAM) -> float:
    """Share of the character n-grams of ``text`` (whitespace removed) that occur more than once."""
    return _repeated_share(_gram_list(_SPACE.sub("", text), n))


def _gram_list(compact: str, n: int = NGRAM) -> list[str]:
    return [compact[i : i + n] for i in range(len(compact) - n + 1)]


def _repeated_share(grams: list[str]) -> float:
    if not grams:
        return 0.0
    counts = Counter(grams)
    return sum(c for c in counts.values() if c > 1) / len(grams)


def _ngrams(body: str, shown: Sequence[tuple[int, list[str]]]) -> list[Finding]:
    """``shown``: each baseline text's length and grams."""
    ratio = repeated_ngram_ratio(body)
    ratios = [_repeated_share(grams) for length, grams in shown if length >= 500]
    baseline = max(ratios) if ratios else 0.0
    if ratio > max(0.5, 3 * baseline):
        severity = "high"
    elif ratio > max(0.3, 2 * baseline):
        severity = "medium"
    else:
        return []
    message = (
        f"整章重复度 {ratio:.0%}（{NGRAM} 字片段重复出现的比例），本书前文基线 {baseline:.0%}。"
    )
    return [Finding("repetition", severity, message)]


def _opening(body: str, previous: str | None) -> list[Finding]:
    if not previous:
        return []
    first = body.strip().split("\n", 1)[0].strip()
    before = previous.strip().split("\n", 1)[0].strip()
    if len(first) >= 40 and first == before:
        message = "本章开头一段与上一章开头一字不差。"
        return [_finding(body, "high", message, body.find(first), first)]
    sentence = next(iter(_SENTENCE.findall(first)), "").strip()
    if len(sentence) >= MIN_SENTENCE and before.startswith(sentence):
        message = f"本章开头一句与上一章开头相同：「{sentence[:20]}」。"
        return [_finding(body, "medium", message, body.find(sentence), sentence)]
    return []


def _loops(body: str) -> list[Finding]:
    """The longest back-to-back loop of the body, if it reaches the advice bar: a short unit
    (``_LOOP``) or a sentence-long one written back to back with no break between the copies
    (``_LONG_LOOP``: 「……「你快，快──」曹先生害了怕……」, which has no sentence end to be
    counted by, 40 times)."""
    worst: tuple[int, int, str, bool] | None = None  # (repetitions, start, unit, blocks)
    for m in _LOOP.finditer(body):
        unit = m.group(1)
        times = len(m.group(0)) // len(unit)
        if _WORDY.search(unit) and len(m.group(0)) >= 16 and (worst is None or times > worst[0]):
            worst = (times, m.start(), unit, times >= LOOP_BLOCK and times * len(unit) >= 40)
    for m in _long_loops(body):
        unit = m.group(1)
        times = len(m.group(0)) // len(unit)
        # a unit made of whole sentences is the sentence check's to report (once, not twice)
        counted = any(len(x) >= MIN_SENTENCE and _ENDED.search(x) for x in _SENTENCE.findall(unit))
        if _WORDY.search(unit) and not counted and (worst is None or not worst[3]):
            worst = (times, m.start(), unit, times >= LONG_LOOP_BLOCK)
    if worst is None:
        return []
    times, start, unit, blocks = worst
    severity = "high" if blocks else "medium"
    message = f"循环重复：「{unit}」连续写了 {times} 遍。"
    return [_finding(body, severity, message, start, unit * times)]


def _long_loops(body: str) -> Iterator[re.Match[str]]:
    """``_LONG_LOOP``'s matches, searched only in the lines where a 9-character run occurs 3
    times or more (any such loop holds one; a real line seldom does, and the search is slow)."""
    pos = 0
    for line in body.split("\n"):
        size = len(line)
        if size >= 9 * LONG_LOOP_ADVICE:
            grams = Counter(line[i : i + 9] for i in range(size - 8))
            if grams.most_common(1)[0][1] >= LONG_LOOP_ADVICE:
                yield from _LONG_LOOP.finditer(body, pos, pos + size)
        pos += size + 1


def _copied(body: str, shown: Sequence[tuple[int, list[str]]]) -> list[Finding]:
    """The share of the body's 12-grams that are the book's own prose as the context shows it
    (``shown``: each baseline text's length and grams), located at the longest copied passage
    (whitespace ignored)."""
    known = set().union(*(grams for _, grams in shown))
    if not known:
        return []
    at = [i for i, c in enumerate(body) if not c.isspace()]  # compact offset → body offset
    compact = "".join(body[i] for i in at)
    copied = [compact[i : i + NGRAM] in known for i in range(len(compact) - NGRAM + 1)]
    if not copied:
        return []
    share = sum(copied) / len(copied)
    if share < COPY_ADVICE:
        return []
    start, length, run = 0, 0, 0  # the longest run of copied grams: one passage
    for i, hit in enumerate(copied):
        run = run + 1 if hit else 0
        if run > length:
            start, length = i - run + 1, run
    first, last = at[start], at[start + length + NGRAM - 2]
    quote = body[first : last + 1]
    severity = "high" if share >= COPY_BLOCK else "medium"
    message = (
        f"照抄前文：本章 {share:.0%} 的文字（{NGRAM} 字片段）与上下文中本书的前文一字不差，"
        f"最长一段 {len(_SPACE.sub('', quote))} 字。"
    )
    return [_finding(body, severity, message, first, quote)]


def _baseline_texts(context: WriterContext) -> list[str]:
    by_chapter: dict[int, list[str]] = {}
    for p in context.prose_evidence:
        by_chapter.setdefault(p.chapter, []).append(p.excerpt)
    return ["\n".join(parts) for parts in by_chapter.values()]


def _previous_opening(context: WriterContext) -> str | None:
    previous = [p for p in context.prose_evidence if p.chapter == context.as_of and p.start == 0]
    return previous[0].excerpt if previous else None


def _finding(body: str, severity: str, message: str, start: int, quote: str) -> Finding:
    if start < 0:
        return Finding("repetition", severity, message)
    line = body.count("\n", 0, start) + 1
    return Finding("repetition", severity, message, start, start + len(quote), quote, line)
