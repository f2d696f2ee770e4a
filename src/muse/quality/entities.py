"""Named entities in Chinese prose, deterministically: the work's lexicon plus a tagging heuristic.

The unknown-entity check (spec 000 §4, §9) asks which names in a candidate are neither in the
frozen context nor declared as new settings. Two sources of names:

1. **The work's known-entity lexicon** (:class:`EntityLexicon`): names and aliases of every card
   that exists as of the freeze, any status. These are found exactly (leftmost-longest) and are
   the per-work user dictionary for step 2: a coined name in it is always one token.
2. **rjieba's part-of-speech tags** over the text between dictionary terms, with the HMM on (it
   is what groups an unseen coined name such as 天剑门 into one word; it is deterministic for a
   given text, dictionary and rjieba version). rjieba does tag proper nouns (nr person, ns place,
   nt organisation, nz other), but its dictionary tags are unusable on novel prose (玉佩 nr,
   东西 ns, 天亮 nr, 竹林 nz), so only these are kept:

   * words **not in jieba's dictionary** (coined names), all Han, 2–6 characters, that are either
     tagged as a person (nr/nrfg/nrt) and start with a surname (``surnames.py``: 林远, 赵无极),
     or tagged nr/ns/nt/nz and end with a place or organisation suffix (天剑门, 云岚宗); one
     leading function character (奉、过、从、向 …) that the HMM glued on is trimmed, and words
     holding a grammatical particle (之、的、了 …) are dropped. On classic prose the HMM calls
     many ordinary words names (湛湛, 开根, 马上遥); without a surname or a suffix they are not
     reported;
   * a compound surname jieba cut off its given name (慕容 + 秋, 夏侯 + 雪衣) is joined back
     (:mod:`muse.quality.compound_names`: not to a word that carries the sentence on, 公孙 +
     慌忙, nor where the surname stands alone before four different words, 儒林外史's 公孙), and
     so is a single surname cut off its given name (苏 + 晚晴) when the name occurs twice or a
     gesture follows it (推门、冷笑、拱手 …);
   * dictionary words tagged as a person that are **3 or more characters** (赵无极), unless
     they are a dictionary common noun and a form of address (管家 + 婆: a role);
   * a noun of two characters followed by a **place or organisation suffix** (镇、城、峰、宗、
     门、派 …) that jieba left apart: 青石 + 镇 → 青石镇, 落霞 + 峰 → 落霞峰.

   Titles in 《》 are handled by the caller (``names.py``).

Precision, honestly: this is a heuristic, not a named-entity recogniser. On the hand-written
passage in ``tests/quality/fixtures/ner_sample.txt`` (15 lines of xianxia-style prose, 11 distinct
names) the tagger finds the 7 not already in the context (青石镇, 天剑门, 落霞峰, 云岚宗, 慕容秋,
赵无极, 黑风寨) and no false positive; it misses a nickname without a surname (小远),
nicknames tagged as adjectives (周老), and two-character dictionary names (北京). The gate then
reports only those that recur, are introduced as names or carry a compound surname
(``names.py``): 4 of them. That is why an unknown entity is
advice (severity medium), never a blocking finding; only exact lexicon matches (future leaks)
block.
"""

from __future__ import annotations

import threading
from bisect import bisect_left, bisect_right
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from itertools import accumulate, compress, count
from typing import TYPE_CHECKING

from sqlalchemy import Connection

from muse.core.errors import InvalidInput
from muse.core.segmentation import shared_jieba
from muse.core.text import all_han
from muse.knowledge import TermAppearance, card_type, term_appearances
from muse.quality.compound_names import columns, joined_surnames, led_by, used_alone
from muse.quality.entity_words import (
    ADDRESS,
    AFTER_NAME,
    BODY_PARTS,
    CARRYING,
    COUNTERS,
    DEMONSTRATIVES,
    DETERMINERS,
    DIVISIONS,
    FUNCTION_WORD_TAGS,
    GESTURE,
    HONORIFICS,
    LEADING_FUNCTION,
    LEADING_VERB,
    LOCATIVES,
    MAX_CHARS,
    MEASURES,
    NOUN_TAGS,
    NUMERALS,
    PARTICLES,
    PERSON_TAGS,
    PLACE_ORG_SUFFIXES,
    PRONOUNS,
    PROPER_TAGS,
    ROOMS,
    char_tag,
    word_tag,
)
from muse.quality.leak import dating_owners
from muse.quality.surnames import COMPOUND, SAID, SINGLE, TITLES, surname_of, title_straddled
from muse.works import chapter_bytes_after, chapter_hashes

if TYPE_CHECKING:
    import rjieba


@dataclass(frozen=True)
class KnownEntity:
    term: str
    card_id: str
    card_name: str
    card_type: str

    def type_label(self) -> str:
        try:
            return card_type(self.card_type).label
        except InvalidInput:  # a type key the registry no longer knows still names the entity
            return self.card_type


BookSoFar = tuple[bytes, ...]  # the canonical text of each chapter so far, as UTF-8 bytes


@dataclass(frozen=True)
class EntityLexicon:
    """Names and aliases of the work's cards that exist as of ``as_of`` (the per-work dictionary),
    and the canonical text of each chapter of the book up to ``as_of`` (``book``: a word the book
    already used is no new name).

    The chapters are UTF-8 bytes: UTF-8 is self-synchronising, so the bytes of a term occur in
    the bytes of a text exactly where the term occurs in the text, and the 15 MB of a long book
    are never decoded. They are not joined either (a term is a name, with no line break, so it
    is in the book exactly when it is in one chapter; joining 15 MB cost 7-8 ms).

    ``read_book``: the book is read on the first question about it (:func:`book_chapters_as_of`
    through this callable), not when the lexicon is built. Most candidates name nobody new and
    no rare term, and a process then never reads the book."""

    work_id: int
    as_of: int
    terms: Mapping[str, KnownEntity]
    book: BookSoFar = ()
    read_book: Callable[[], BookSoFar] | None = field(default=None, compare=False, repr=False)
    # names the context's outline introduces in its target chapter (term → card id: a declared
    # debut's names, a nickname dated to the chapter that the outline writes): in the future of
    # the freeze, so not in ``terms``, yet a hard event of the chapter names its card by them
    # (:func:`muse.quality.names.introduced_names`, set by ``flow.checking.check_lexicons``)
    introduced: Mapping[str, str] = field(default_factory=dict)

    @cached_property
    def _so_far(self) -> BookSoFar:
        return self.book if self.read_book is None else self.read_book()

    def in_book(self, term: str) -> bool:
        """Whether the canonical text up to the freeze point holds ``term`` anywhere."""
        needle = term.encode()
        return any(needle in chapter for chapter in self._so_far)

    def chapters_so_far(self) -> int:
        """How many chapters the book has up to the freeze point."""
        return len(self._so_far)

    def chapters_using(self, term: str, stop: int) -> int:
        """How many chapters so far hold ``term`` (counting stops past ``stop``)."""
        if not term:
            return 0
        needle, count = term.encode(), 0
        for chapter in self._so_far:
            if needle in chapter:
                count += 1
                if count > stop:
                    break
        return count


def build_entity_lexicon(conn: Connection, work_id: int, as_of: int) -> EntityLexicon:
    """The known-entity lexicon of ``work_id`` at ``as_of``."""
    book = book_chapters_as_of(conn, work_id, as_of)
    return entity_lexicon_from(term_appearances(conn, work_id), work_id, as_of, book)


@dataclass(frozen=True)
class _Book:
    """A work's canonical chapters, read once: (number, content hash) of each, and its text as
    UTF-8 bytes."""

    chapters: tuple[tuple[int, str], ...]
    texts: tuple[bytes, ...]


_BOOKS: OrderedDict[int, _Book] = OrderedDict()
_BOOKS_LIMIT = 4
_books_lock = threading.Lock()


def book_chapters_as_of(conn: Connection, work_id: int, as_of: int) -> BookSoFar:
    """The book's own vocabulary so far: the canonical text of each chapter up to ``as_of``, in
    number order, as UTF-8 bytes.

    The chapters are read once per work and process (one query for the hashes and texts), and
    kept while their content hashes stay the same (one light query per later call, no text
    read); chapters accepted since are appended, a changed earlier chapter reads them again. A
    hash names its text, so a kept book is never stale, whatever database the same work id
    comes from.
    """
    book = _book(conn, work_id)
    return book.texts[: bisect_right([n for n, _ in book.chapters], as_of)]


def _book(conn: Connection, work_id: int) -> _Book:
    with _books_lock:
        kept = _BOOKS.get(work_id)
    if kept is None:  # the work's first check in this process: one query reads hashes and texts
        book = _extended(conn, work_id, _EMPTY_BOOK)
    else:
        chapters = tuple(chapter_hashes(conn, work_id))
        book = kept if kept.chapters == chapters[: len(kept.chapters)] else _EMPTY_BOOK
        if book.chapters != chapters:
            book = _extended(conn, work_id, book)
    if book is not kept:
        with _books_lock:
            _BOOKS[work_id] = book
            _BOOKS.move_to_end(work_id)
            while len(_BOOKS) > _BOOKS_LIMIT:
                _BOOKS.popitem(last=False)
    return book


def _extended(conn: Connection, work_id: int, book: _Book) -> _Book:
    """``book`` with the chapters numbered above its last one appended (with their hashes: the
    same query reads both)."""
    after = book.chapters[-1][0] if book.chapters else 0
    rows = chapter_bytes_after(conn, work_id, after)
    if not rows:
        return book
    return _Book(
        book.chapters + tuple((n, sha) for n, sha, _ in rows),
        book.texts + tuple(text for *_, text in rows),
    )


_EMPTY_BOOK = _Book((), ())


def entity_lexicon_from(
    appearances: Iterable[TermAppearance],
    work_id: int,
    as_of: int,
    book: BookSoFar = (),
    *,
    read_book: Callable[[], BookSoFar] | None = None,
) -> EntityLexicon:
    terms = {
        term: KnownEntity(term, a.card_id, a.card_name, a.card_type)
        for term, a in dating_owners(appearances).items()
        if a.first_chapter is not None and a.first_chapter <= as_of
    }
    return EntityLexicon(work_id, as_of, terms, book, read_book)


@dataclass(frozen=True)
class EntitySpan:
    text: str
    start: int  # code point offset in the scanned text, inclusive
    end: int  # exclusive
    how: str  # coined | dictionary | suffix | recurring


def tagged_entities(
    text: str, offset: int = 0, alone: frozenset[str] | None = None
) -> list[EntitySpan]:
    """Proper-noun-like words of ``text`` by the rules of the module docstring.

    ``text`` should hold no dictionary term of the work (the caller cuts them out first);
    offsets are shifted by ``offset``. ``alone``: the compound surnames used alone in the whole
    text ``text`` was cut from (:func:`used_alone`; by default, in ``text``).
    """
    jieba = shared_jieba()  # the process's one jieba, shared with the index tokenizer
    alone = used_alone(text) if alone is None else alone
    tokens = joined_surnames(jieba, jieba.tag(text, hmm=True), alone)
    words, tags = columns(tokens)
    starts = list(accumulate(map(len, words), initial=offset))
    spans: list[EntitySpan] = []
    # only a suffix character or a proper-noun tag can give a span: the others are passed over
    # here, at the speed of C, not tested one by one below
    proper = compress(count(), map(PROPER_TAGS.__contains__, tags))
    suffix = compress(count(), map(PLACE_ORG_SUFFIXES.__contains__, words))
    for i in sorted({*proper, *suffix}):
        word, tag = tokens[i]
        pos = starts[i]
        merged = (
            _suffixed(jieba, (*tokens[i - 1], starts[i - 1]) if i else None, word, pos)
            if len(word) == 1 and word in PLACE_ORG_SUFFIXES
            else None
        )
        if merged is not None:
            if spans and spans[-1].start == merged.start:
                spans.pop()
            spans.append(merged)
        elif (
            tag in PROPER_TAGS
            and (span := _entity_at(jieba, word, tag, pos)) is not None
            and not title_straddled(text, span.end - offset)
        ):
            spans.append(span)
    spans.extend(_free_of(spans, _recurring_names(jieba, text, tokens, starts)))
    spans.sort(key=lambda s: s.start)
    return spans


def _free_of(spans: list[EntitySpan], extras: Iterable[EntitySpan]) -> Iterator[EntitySpan]:
    """The ``extras`` (in the order of their starts) that overlap neither a span of ``spans``
    nor an extra kept before them. ``spans`` are in order and apart (each lies in its own token,
    a suffixed name in the two tokens it joins, whose first one's span it replaced), so the one
    that could overlap an extra is the last to start before the extra ends; of the extras kept,
    the last one kept."""
    starts = [s.start for s in spans]
    last_end = -1
    for extra in extras:
        k = bisect_left(starts, extra.end) - 1
        if (k < 0 or spans[k].end <= extra.start) and last_end <= extra.start:
            last_end = extra.end
            yield extra


def _recurring_names(
    jieba: rjieba.Jieba, text: str, tokens: list[tuple[str, str]], starts: list[int]
) -> Iterator[EntitySpan]:
    """Surname + given name that jieba cut apart (苏 + 晚晴, 顾长 + 歌), kept only when the joined
    name occurs at least twice in ``text`` (a recurring unknown word led by a surname) or a
    person's gesture follows it (「顾长歌推门而入」: ``GESTURE``). ``starts``: each token's offset."""
    offset = starts[0]
    counts: dict[str, int] = {}
    # pure tests, cheapest first: a surname's first character at the start of the word (found
    # at the speed of C) and the lengths rule out most pairs before the pair is joined
    # (_person_like needs the surname too)
    pairs = [
        i
        for i in led_by(tokens, _SURNAME_HEADS)
        if i + 1 < len(tokens)
        and len(nxt := tokens[i + 1][0]) <= 2
        and 2 <= len(word := tokens[i][0]) + len(nxt) <= 3
        and (word[0] in SINGLE or (word + nxt)[:2] in COMPOUND)
        and not (len(word) > 1 and tokens[i][1] in FUNCTION_WORD_TAGS)  # 许多 + 日: a word
    ]
    for i in pairs:
        word, nxt, pos = tokens[i][0], tokens[i + 1][0], starts[i]
        joined = word + nxt
        if (times := counts.get(joined)) is None:
            times = counts[joined] = text.count(joined)
        if (
            (
                times >= 2
                or GESTURE.match(text, pos - offset + len(joined)) is not None
                and not (len(word) > 1 and jieba.has_word(word))  # 索性 + 不开口: a word cut
            )
            and all_han(joined)
            and _person_like(jieba, joined)
            and nxt[-1] not in AFTER_NAME
            and not any(c in PARTICLES for c in joined)
            and not jieba.has_word(joined)
            # 戴 + 上 「戴上帽子」: a verb and where it goes; 一张 + 支票: a measure word
            and not (len(nxt) == 1 and char_tag(jieba, nxt).startswith(CARRYING))
            and not (word in MEASURES and text[pos - offset - 1 : pos - offset] in COUNTERS)
        ):
            yield EntitySpan(joined, pos, pos + len(joined), "recurring")


_SURNAME_HEADS = SINGLE | {c[0] for c in COMPOUND}


def _entity_at(jieba: rjieba.Jieba, word: str, tag: str, pos: int) -> EntitySpan | None:
    """:func:`_entity` of a token at ``pos``."""
    found = _entity(jieba, word, tag)
    if found is None:
        return None
    name, shift, how = found
    return EntitySpan(name, pos + shift, pos + shift + len(name), how)


# kept per jieba, word and tag: the process's jieba is never changed (muse.core.segmentation),
# and a book repeats its names (a chapter of 三国演义 tags some 400 tokens as proper nouns)
@lru_cache(maxsize=16384)
def _entity(jieba: rjieba.Jieba, word: str, tag: str) -> tuple[str, int, str] | None:
    """The entity a token is (its text, where it starts in the token, how it was found), or
    None."""
    if tag not in PROPER_TAGS or not 2 <= len(word) <= MAX_CHARS or not all_han(word):
        return None
    if jieba.has_word(word):
        if (
            len(word) == 3
            and tag in PERSON_TAGS
            and _person_like(jieba, word)
            and word[-1] not in AFTER_NAME
            and not _role_word(jieba, word)
        ):
            return word, 0, "dictionary"
        return None
    shift = 0
    if len(word) >= 4 and word[0] in LEADING_FUNCTION:
        word, shift = word[1:], 1
    elif len(word) == 3 and word[0] in LEADING_VERB and word[-1] in PLACE_ORG_SUFFIXES:
        word, shift = word[1:], 1  # 取 + 冀城: a verb glued to a place
    if any(c in PARTICLES for c in word):
        return None
    person = tag in PERSON_TAGS and _person_like(jieba, word)
    # 定国、满庄: a verb, adjective or adverb and a suffix (「安邦定国」「满庄儿女」), no place;
    # 山二城: a count of places (「麴山二城」)
    place = (
        word[-1] in PLACE_ORG_SUFFIXES
        and word[-2] not in NUMERALS
        and word[0] not in DEMONSTRATIVES
        and word[-2] not in HONORIFICS
        and (len(word) > 2 or char_tag(jieba, word[0]) not in MODIFIER_TAGS)
    )
    if not (person or place) or word[-1] in AFTER_NAME:
        return None
    return word, shift, "coined"


def _person_like(jieba: rjieba.Jieba, word: str) -> bool:
    """A surname, then a given name that is no reduplicated adjective (明 + 湛湛), no title or
    form of address (司马 + 太尉, 刘 + 郎), no count of people (朱 + 二人), no verb of the
    dictionary (关 + 迎敌: 「赴关迎敌」) and does not open with an adverb, preposition or
    conjunction (艾 + 亦大: 「艾亦大骂」, 诸葛 + 用谋: 「诸葛用谋」) — there the "surname" is a
    person's short name or a place, and what follows is the sentence going on."""
    surname = surname_of(word)
    if surname is None or len(word) > 4:
        return False
    given = word[len(surname) :]
    if given in TITLES or given in ADDRESS or given[0] in NUMERALS and given[-1] in "人位个名":
        return False
    if any(c in PARTICLES or c in PRONOUNS for c in given):  # 蒋奇 + 之, 谢 + 我
        return False
    if given in BODY_PARTS or given in ROOMS or given in SAID:  # 左肩, 侯门 (a house), 闻人 + 报
        return False
    if (
        len(word) == 3
        and word[-1] in LOCATIVES
        and (word_tag(jieba, word[:2]) == "n" or word[1] in PLACE_ORG_SUFFIXES)
    ):
        return False  # 武库 + 内, 樊楼 + 前: a thing or a place and where in it (「来到樊楼前」)
    if len(given) == 2 and (word_tag(jieba, given).startswith("v") or _opens_clause(jieba, given)):
        return False
    return not (len(given) == 2 and given[0] == given[1] and jieba.has_word(given))


CLAUSE_TAGS = ("d", "p", "c")  # adverb, preposition, conjunction: 亦、用、而 …
# what a character is used for when it is no name: jieba's dictionary tag of it on its own
MODIFIER_TAGS = frozenset({"a", "v", "d"})  # adjective, verb, adverb: 白、盛、尚 …
CONTENT_TAGS = frozenset({"n", "ng", "a", "ag", "v", "vg"})  # noun, adjective, verb: 甲、水、胖


def _role_word(jieba: rjieba.Jieba, word: str) -> bool:
    """A common noun of the dictionary and a form of address (管家 + 婆, 老婆 + 婆, 尚书 + 郎):
    a role, not a name, though jieba's dictionary tags the whole a person."""
    return word[-1] in ADDRESS and word_tag(jieba, word[:-1]) == "n"


def ordinary_pair(jieba: rjieba.Jieba, word: str) -> bool:
    """Whether a two-character word reads as an ordinary word by jieba's dictionary: its first
    character is an adverb or a pronoun (尚温: 「其酒尚温」; 何幸), or an adjective, a verb or a
    noun before a noun, adjective or verb (白甲, 黄绢, 盛水, 黄胖, 茅庵, 武洗), or the word
    reversed is a dictionary word (宗祖 → 祖宗).
    A surname of this kind (白、高、黄、关 …) still leads real names (黄盖, 关平); the caller
    keeps those where the chapter treats the word as a name."""
    if len(word) != 2 or not all_han(word):
        return False
    first, second = (char_tag(jieba, c) for c in word)
    if first in ("d", "r") or (first in MODIFIER_TAGS or first == "n") and second in CONTENT_TAGS:
        return True
    return jieba.has_word(word[::-1])


def _opens_clause(jieba: rjieba.Jieba, given: str) -> bool:
    return jieba.tag(given[0], hmm=False)[0][1].startswith(CLAUSE_TAGS)


def _suffixed(
    jieba: rjieba.Jieba, previous: tuple[str, str, int] | None, word: str, pos: int
) -> EntitySpan | None:
    if previous is None or len(word) != 1 or word not in PLACE_ORG_SUFFIXES:
        return None
    prev_word, prev_tag, prev_pos = previous
    if len(prev_word) != 2 or prev_tag not in NOUN_TAGS or not all_han(prev_word):
        return None
    if prev_word in TITLES or prev_word in DETERMINERS:
        return None  # 大爷 + 派: 「大爷派了侄儿」, someone addressed and a verb; 全部 + 门
    if word == "门" and prev_word[-1] in ROOMS:
        return None
    if word in DIVISIONS and word_tag(jieba, prev_word) == "ns":
        return None  # 长沙 + 郡: a place of the dictionary and its division, the same place
    return EntitySpan(prev_word + word, prev_pos, pos + 1, "suffix")
