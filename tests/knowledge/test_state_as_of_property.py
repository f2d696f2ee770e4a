"""Property: nothing dated after as_of ever appears in a state (spec 000 §5.2, principle 4).

Random books of random cards. Every piece of text the generator writes carries a tag with the
latest chapter it depends on — ``⟨c7⟩`` — or ``⟨never⟩`` for what may never be shown (planning
data, unprovable or misplaced milestones, stale references, undated sealed fields). Names carry
their card's debut, so a text that mentions a card carries that card's date too. The states as of
a random chapter, serialised, must hold no tag later than as_of and no ``⟨never⟩``.
"""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from muse.knowledge.card_state import book_state_as_of
from tests.knowledge.builders import card, ref

MAX_CHAPTER = 30
NEVER = "⟨never⟩"
TAG = re.compile(r"⟨c(\d+)⟩")
chapters = st.integers(1, MAX_CHAPTER)


def tag(date: int | None) -> str:
    return NEVER if date is None else f"⟨c{date}⟩"


@st.composite
def dated(draw, *, floor: int = 0):
    """(since, refs, date): an optional own chapter and references; date None = never showable."""
    since = draw(st.none() | chapters)
    refs = [
        ref(c, stale=s, quote=f"引{tag(None if s else c)}")
        for c, s in draw(st.lists(st.tuples(chapters, st.booleans()), max_size=2))
    ]
    dates = [d for d in (since, *(r.chapter for r in refs)) if d is not None]
    return since, refs, max([floor, *dates])


@st.composite
def milestone(draw, others: list[str]):
    chapter = draw(st.none() | chapters)
    ref_chapters = draw(st.lists(chapters, max_size=2))
    stale = draw(st.lists(st.booleans(), min_size=len(ref_chapters), max_size=len(ref_chapters)))
    refs = [
        ref(c, stale=s, quote=f"引{tag(None if s else c)}")
        for c, s in zip(ref_chapters, stale, strict=True)
    ]
    showable = (
        chapter is not None
        and not (refs and all(stale))
        and all(c <= chapter for c in ref_chapters)
    )
    date = chapter if showable else None
    mention = draw(st.sampled_from(["", *others]))
    return {
        "chapter": chapter,
        "cycle": draw(st.sampled_from(["成长", "高光", "退场", "结局"])),
        "step": f"台阶{tag(date)}",
        "description": f"事{tag(date)}{mention}",
        "refs": refs,
    }


@st.composite
def book(draw):
    n = draw(st.integers(1, 5))
    debuts = [draw(st.sampled_from(["none", "dated", "dated", "unproven"])) for _ in range(n)]
    debut_chapters = [draw(chapters) if kind == "dated" else None for kind in debuts]
    floors = [
        0 if k == "none" else (c if k == "dated" else None)
        for k, c in zip(debuts, debut_chapters, strict=True)
    ]
    names = [f"卡{i}{tag(floors[i])}" for i in range(n)]
    alias_since = [draw(st.none() | chapters) for _ in range(n)]
    aliases = [
        f"别{i}{tag(None if floors[i] is None else max(floors[i], alias_since[i] or 0))}"
        for i in range(n)
    ]
    terms = names + aliases
    cards = [
        draw(one_card(i, names[i], aliases[i], alias_since[i], debuts[i], debut_chapters[i], terms))
        for i in range(n)
    ]
    return cards, floors


@st.composite
def one_card(draw, i, name, alias, alias_since, debut_kind, debut_chapter, terms):
    others = [t for t in terms if not t.startswith((f"卡{i}⟨", f"别{i}⟨"))]
    milestones = draw(st.lists(milestone(others), max_size=5))
    if debut_kind == "dated":
        milestones.append(
            {
                "chapter": debut_chapter,
                "cycle": "登场",
                "step": f"登场{tag(debut_chapter)}",
                "refs": [ref(debut_chapter, quote=f"引{tag(debut_chapter)}")],
            }
        )
    elif debut_kind == "unproven":
        milestones.append({"chapter": None, "cycle": "登场", "step": f"登场{NEVER}"})
    fields = {}
    for key in ("summary", "identity", "personality", "goal", "true_identity"):
        since, refs, date = draw(dated())
        if key == "true_identity" and since is None and not refs:
            date = None  # a sealed field without a date may never be shown
        mention = draw(st.sampled_from(["", *others]))
        fields[key] = {"value": f"{key}{tag(date)}{mention}", "since_chapter": since, "refs": refs}
    relations = []
    for target in draw(st.lists(st.sampled_from(others), max_size=2)) if others else []:
        since, refs, date = draw(dated())
        relations.append(
            {
                "kind": "相识",
                "target": target,
                "since_chapter": since,
                "refs": refs,
                "note": f"注{tag(date)}",
            }
        )
    return card(
        name,
        fields=fields,
        milestones=milestones,
        relations=relations,
        aliases=[{"name": alias, "since_chapter": alias_since}],
        growth_arc=[{"chapter": draw(chapters), "cycle": "结局", "step": f"终{NEVER}"}],
        ending_direction=f"结局{NEVER}",
        end_state=f"终态{NEVER}",
        refs=[ref(c, quote=f"引{tag(c)}") for c in draw(st.lists(chapters, max_size=2))],
    )


@settings(max_examples=300, deadline=None)
@given(book(), st.integers(0, MAX_CHAPTER + 1))
def test_nothing_dated_after_as_of_ever_appears(generated, as_of):
    cards, floors = generated
    for state, floor in zip(book_state_as_of(cards, as_of), floors, strict=True):
        assert state.exists is (floor is not None and floor <= as_of)
        if state.state is None:
            continue
        shown = state.state.model_dump_json()
        assert NEVER not in shown
        late = [int(d) for d in TAG.findall(shown) if int(d) > as_of]
        assert not late, f"as of {as_of}, leaked chapters {late}: {shown}"


@settings(max_examples=150, deadline=None)
@given(book(), st.integers(0, MAX_CHAPTER), st.integers(0, MAX_CHAPTER))
def test_what_is_known_at_a_chapter_stays_known_later(generated, a, b):
    cards, _ = generated
    early, late = min(a, b), max(a, b)
    before = book_state_as_of(cards, early)
    after = book_state_as_of(cards, late)
    for x, y in zip(before, after, strict=True):
        if x.state is None:
            continue
        assert y.state is not None
        assert all(
            m in y.state.milestones or any(m.step == n.step for n in y.state.milestones)
            for m in x.state.milestones
        )
        assert set(x.state.fields) <= set(y.state.fields)
        assert set(x.state.aliases) <= set(y.state.aliases)
