"""Tokenising Chinese prose for the search index (ARCHITECTURE.md §7).

Why it is built this way:

* **Coined names stay whole.** rjieba has per-instance dictionaries (``rjieba.Jieba().add_word``),
  but jieba's segmentation is a maximum-probability path, so even a dictionary word can lose to a
  neighbouring split. Instead the text is *pre-split* on the work's dictionary terms (card names
  and aliases, found leftmost-longest by :class:`muse.knowledge.terms.TermMatcher`): every term
  occurrence becomes one token, and only the gaps between terms go to jieba. 「萧炎」 in the
  dictionary is always one token; not in it, it is 「萧」「炎」.
* **No HMM.** jieba's HMM guesses unknown words from their neighbours, so the same name could be
  one token here and two there, and a query would miss half its occurrences. With ``hmm=False``
  an unknown word is always the same single characters, matched as a phrase.
* **One shared jieba, never mutated** (:func:`muse.core.segmentation.shared_jieba`, also used by
  the entity tagger): nothing in Muse changes its dictionary, so tokens stay a pure function of
  (text, dictionary, rjieba version); it is loaded when text is first tokenised.
* **Both backends see exactly these tokens.** Tokens are computed here and stored
  space-separated; SQLite FTS5 (``unicode61``) and PostgreSQL ``to_tsvector('simple', …)`` then
  only split on the spaces. To make that true, a token holds only characters both parsers treat
  as word characters and neither case-folds differently: CJK letters (Unicode category Lo of the
  Han, Hiragana, Katakana and Hangul scripts, plus 〇 and 々) and lowercase ASCII letters or
  digits, letters and digits in separate tokens. Everything else (punctuation, symbols, other scripts) separates
  tokens. Text and terms are NFKC-folded and lowercased before segmentation (full-width ``ＡＢＣ``
  finds ``abc``): tokens are an index key only, never addressed by offsets (chunks carry the
  offsets), so the author's text is untouched.
  Verified once over every Lo code point of Unicode 14 on PostgreSQL 15 (C.UTF-8) and SQLite
  3.40 FTS5: all CJK ones are single word tokens on both; 21 non-CJK Lo characters (New Tai Lue)
  are not, which is why the alphabet is restricted to the CJK scripts (``CJK_RANGES``). 〇 (Nl)
  and 々 (Lm) were checked by hand on both.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Iterator
from functools import cache

from muse.core.canonical import hash_value
from muse.core.segmentation import shared_jieba
from muse.core.text import normalize_text
from muse.knowledge import TermMatcher

TOKENIZER_VERSION = "t1"  # bump on any change to how text becomes tokens
MAX_TOKEN_CHARS = 64  # PostgreSQL drops lexemes over 2047 bytes; FTS5 would keep them

# The CJK letters of Unicode 14 (category Lo of the Han, Hiragana, Katakana and Hangul scripts,
# half-width forms left out: NFKC folds them first) plus 〇 and 々. A fixed table, not a Unicode
# property, so that an upgrade of a Unicode database cannot change the tokens silently.
CJK_RANGES = (
    (0x1100, 0x11FF),  # Hangul Jamo
    (0x3005, 0x3005),  # 々
    (0x3007, 0x3007),  # 〇
    (0x3041, 0x3096),  # Hiragana
    (0x309F, 0x309F),
    (0x30A1, 0x30FA),  # Katakana
    (0x30FF, 0x30FF),
    (0x3131, 0x318E),  # Hangul Compatibility Jamo
    (0x31F0, 0x31FF),  # Katakana Phonetic Extensions
    (0x3400, 0x4DBF),  # CJK Extension A
    (0x4E00, 0x9FFF),  # CJK Unified Ideographs
    (0xA960, 0xA97C),  # Hangul Jamo Extended-A
    (0xAC00, 0xD7A3),  # Hangul Syllables
    (0xD7B0, 0xD7C6),  # Hangul Jamo Extended-B
    (0xD7CB, 0xD7FB),
    (0xF900, 0xFA6D),  # CJK Compatibility Ideographs
    (0xFA70, 0xFAD9),
    (0x1B000, 0x1B122),  # Kana Supplement, Extended-A
    (0x1B150, 0x1B152),  # Small Kana Extension
    (0x1B164, 0x1B167),
    (0x20000, 0x2A6DF),  # CJK Extension B
    (0x2A700, 0x2B738),  # C
    (0x2B740, 0x2B81D),  # D
    (0x2B820, 0x2CEA1),  # E
    (0x2CEB0, 0x2EBE0),  # F
    (0x2F800, 0x2FA1D),  # CJK Compatibility Ideographs Supplement
    (0x30000, 0x3134A),  # G
)
_CJK_CLASS = "".join(f"{chr(a)}-{chr(b)}" if a != b else chr(a) for a, b in CJK_RANGES)
_TOKEN = re.compile(f"[a-z]+|[0-9]+|[{_CJK_CLASS}]+")


def normalize_terms(terms: Iterable[str]) -> list[str]:
    """The user dictionary in canonical form: NFC, stripped, unique, sorted."""
    return sorted({normalize_text(t).strip() for t in terms} - {""})


def fold(text: str) -> str:
    """Case and width folding for the index key: NFKC, then lowercase."""
    return unicodedata.normalize("NFKC", normalize_text(text)).lower()


def _safe_tokens(pieces: str) -> list[str]:
    return [t for t in _TOKEN.findall(pieces) if len(t) <= MAX_TOKEN_CHARS]


class Tokenizer:
    """Text → index tokens for one user dictionary. Deterministic; safe to share between threads."""

    def __init__(self, terms: Iterable[str] = ()) -> None:
        self.terms = normalize_terms(terms)
        self.dictionary_sha256 = hash_value(self.terms)
        self._matcher = TermMatcher(fold(t) for t in self.terms)
        self._jieba = shared_jieba()
        self._term_tokens = {tok for term in self.terms for tok in self.tokens(term)}

    def pieces(self, folded: str) -> Iterator[str]:
        """Dictionary terms whole, jieba (no HMM) between them, over folded text."""
        pos = 0
        for start, end in self._term_spans(folded):
            if start > pos:
                yield from self._jieba.cut(folded[pos:start], hmm=False)
            yield folded[start:end]
            pos = end
        if pos < len(folded):
            yield from self._jieba.cut(folded[pos:], hmm=False)

    def tokens(self, text: str) -> list[str]:
        """The index tokens of ``text``, in order (repeats kept: positions matter for phrases)."""
        return _safe_tokens(" ".join(self.pieces(fold(text))))

    def term_phrase(self, term: str) -> tuple[str, ...]:
        """A name or alias as a phrase: its tokens, which must appear consecutively."""
        return tuple(self.tokens(term))

    def query_tokens(self, query: str) -> tuple[str, ...]:
        """Free text as OR-ed tokens: unique, in order, single characters dropped unless they
        are dictionary terms (「的」「了」 would match every chunk) or nothing else is left."""
        tokens = list(dict.fromkeys(self.tokens(query)))
        content = [t for t in tokens if len(t) > 1 or t in self._term_tokens]
        return tuple(content or tokens)

    def _term_spans(self, text: str) -> Iterator[tuple[int, int]]:
        # TermMatcher yields leftmost-longest, non-overlapping matches in order; the leftmost
        # occurrence of each at or after the previous end is exactly where it matched.
        pos = 0
        for found in self._matcher.finditer(text):
            start = text.find(found, pos)
            pos = start + len(found)
            yield start, pos


@cache
def plain_tokenizer() -> Tokenizer:
    """A tokenizer without user dictionary (tests, benchmarks, works without cards)."""
    return Tokenizer(())
