"""The outline's own words around a term, found in the prose with something else in its place.

A fine outline that quotes or closely follows the prose shares its frames with it: the words
either side of a key term. Where the prose holds the frame with another word (or another person)
in the term's place, the term was changed in place, which no paraphrase does; an outline in an
author's own words shares no such frame with the prose. Used by :mod:`muse.quality.hard_events`.
"""

from __future__ import annotations

from collections.abc import Iterable

import regex

from muse.core.text import is_han

CONTEXT = 3  # Han characters of the outline (no name) either side of a term that frame it
REACH_FRAME = 8  # at most this many characters of the outline either side


def changed_in_place(
    event: str,
    term: str,
    body: str,
    missing: Iterable[str] = (),
    names: Iterable[str] = (),
) -> bool:
    """Whether the body holds the outline's words around ``term`` with something else of its
    length in its place: the prose tells the event's own sentence, the term changed. ``missing``:
    the event's other terms the body lacks (changed as well: any text of their length);
    ``names``: the people's names of the event (they frame nothing: a name stands beside many
    words). Each side of the frame reaches out to ``CONTEXT`` Han characters that are no name
    (at most ``REACH_FRAME`` characters); it needs a character on each side (``CONTEXT`` on one
    side at the edge of the event) and ``CONTEXT`` Han characters in all. An outline in an
    author's own words shares no such frame with the prose, so a word of it the chapter does not
    use is no sign (measured on the paraphrased outlines: 回到, 商量, 告诉 … for the book's 回,
    商议, 说与)."""
    return in_its_place(event, term, body, missing, names) is not None


def in_its_place(
    event: str,
    term: str,
    body: str,
    missing: Iterable[str] = (),
    names: Iterable[str] = (),
    everyone: frozenset[str] = frozenset(),
) -> str | None:
    """What stands in ``term``'s place in ``body`` within the outline's own frame around it
    (:func:`changed_in_place`), or None when the frame is not there. Only another word counts:
    Han characters, none of them the term's (a word that keeps one is a variant of it: 斩断 and
    劈断, 师父 and 师傅, 军队 and 军马; but not one that keeps only a locative, a suffix or an
    infix, ``LIGHT``: 城里 for 省里, 身上 for 村上, 公子 for 小子, 拦不住 for 想不起 are other
    words), and no name of the work (``everyone``: an outline's 师父 may be the 长老 of the
    prose). Between two sides of the outline's words, the other word may
    be a character shorter or longer (人参果 for 果子 is a change all the same); at the edge of
    the event, where one side is open, only a word of the term's length counts (a shorter one
    would be any first characters of whatever stands there)."""
    heavy = set(term) - LIGHT
    own = "".join(regex.escape(c) for c in (heavy or set(term)))
    for left, right, anchored in _frames(event, term, missing, names):
        fewest, most = (max(1, len(term) - 1), len(term) + 1) if anchored else (len(term),) * 2
        gap = f"((?:(?![{own}])\\p{{Script=Han}}){{{fewest},{most}}})"
        for match in regex.finditer(left + gap + right, body):
            word: str = match.group(1)
            if word not in everyone:
                return word
    return None


def name_in_its_place(
    event: str,
    name: str,
    body: str,
    others: frozenset[str],
    missing: Iterable[str] = (),
    names: Iterable[str] = (),
) -> str | None:
    """Another person's name standing in ``name``'s place in ``body`` within the outline's own
    frame around it: the prose repeats the outline's sentence with someone else doing it.
    ``others``: the names of the work's other people and things (a card's); a name no card holds
    may be the same person under a name of the prose (镇元大仙 told as 大仙), so only a known other
    name counts, of any length (it may share the surname: 刘表 for 刘备)."""
    for left, right, _ in _frames(event, name, missing, [n for n in names if n != name]):
        for size in range(1, LONGEST_NAME + 1):
            for match in regex.finditer(left + f"(\\p{{Script=Han}}{{{size}}})" + right, body):
                other: str = match.group(1)
                if other in others:
                    return other
    return None


LONGEST_NAME = 6
# characters a word shares with another without being a variant of it: locatives, suffixes and
# the infixes of a verb's complement (想不起 and 拦不住 are two deeds)
LIGHT = frozenset("里上下中内外前后边旁头子儿们者不得")


def _frames(
    event: str, term: str, missing: Iterable[str], names: Iterable[str]
) -> list[tuple[str, str, bool]]:
    """The patterns either side of each occurrence of ``term`` in ``event`` that frame it (see
    :func:`changed_in_place`), and whether both sides hold the outline's own characters
    (anchored: the other changed terms in it may then be words of about their length; at an
    open edge, only of their own length)."""
    marks = _marks(event, [m for m in missing if m != term], list(names))
    frames = []
    at = event.find(term)
    while at >= 0:
        end = at + len(term)
        before = range(at - 1, max(-1, at - 1 - REACH_FRAME), -1)
        after = range(end, min(len(event), end + REACH_FRAME))
        (lp, ln, lh), (rp, rn, rh) = _side(event, marks, before), _side(event, marks, after)
        if lh + rh >= CONTEXT and (ln or rh >= CONTEXT) and (rn or lh >= CONTEXT):
            anchored = bool(ln and rn)
            if not anchored:
                lp, rp = _side(event, marks, before, False)[0], _side(event, marks, after, False)[0]
            frames.append((lp, rp, anchored))
        at = event.find(term, at + 1)
    return frames


def _marks(event: str, others: list[str], names: list[str]) -> list[str]:
    """Per character of ``event``: "m" inside another changed term, "n" inside a name, else ""."""
    marks = [""] * len(event)
    for mark, words in (("n", names), ("m", others)):
        for word in words:
            at = event.find(word) if word else -1
            while at >= 0:
                marks[at : at + len(word)] = [mark] * len(word)
                at = event.find(word, at + 1)
    return marks


def _side(
    event: str, marks: list[str], positions: range, flexible: bool = True
) -> tuple[str, int, int]:
    """The frame on one side of a term, over ``positions`` outward: (pattern, literal characters,
    Han characters of no name). Another changed term is any word of about its length
    (:func:`_another`); it stops at ``CONTEXT`` Han characters."""
    taken: list[int] = []
    han = 0
    for i in positions:
        if han >= CONTEXT:
            break
        taken.append(i)
        han += marks[i] == "" and is_han(event[i])
    pattern, literal, run = "", 0, 0
    for i in sorted(taken):
        if marks[i] == "m":
            run += 1
            continue
        if run:
            pattern, run = pattern + _another(run, flexible), 0
        pattern += regex.escape(event[i])
        literal += 1
    if run:
        pattern += _another(run, flexible)
    return pattern, literal, han


def _another(size: int, flexible: bool = True) -> str:
    """A pattern for another word in place of one of ``size`` characters: Han characters, one
    fewer to one more (``flexible``) or exactly as many."""
    if not flexible:
        return f"\\p{{Script=Han}}{{{size}}}"
    return f"\\p{{Script=Han}}{{{max(1, size - 1)},{size + 1}}}"
