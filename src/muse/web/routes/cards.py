"""Cards by type, and one card: fields, milestones, relations, sources, and its state as of any
chapter with what the freeze excluded and why (the same ``state_as_of`` ``muse card show`` uses)."""

from __future__ import annotations

from collections import defaultdict

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response

from muse.knowledge import BookTerms, CardStatus, card_type, get_card, load_cards, state_as_of
from muse.web.deps import read, work_nav
from muse.web.render import page

router = APIRouter()

EXCLUSION_KINDS = {
    "card": "卡片",
    "milestone": "演变",
    "field": "字段",
    "alias": "别名",
    "relation": "关系",
    "ref": "出处",
    "plan": "规划",
}
ALL_STATUSES = tuple(CardStatus)


@router.get("/works/{work_id}/cards", response_class=HTMLResponse)
def card_list(request: Request, work_id: int, type: str | None = None) -> Response:
    with read(request) as conn:
        info = work_nav(conn, work_id)
        cards = load_cards(conn, work_id, statuses=ALL_STATUSES)
    by_type: dict[str, list] = defaultdict(list)
    for card in cards:
        if type is None or card.type == type:
            by_type[card.type].append(card)
    groups = [
        (card_type(t).label, t, sorted(cs, key=lambda c: c.name)) for t, cs in by_type.items()
    ]
    return page(request, "cards.html", title="知识卡", work=info, groups=groups, chosen=type)


@router.get("/works/{work_id}/cards/{card_id}", response_class=HTMLResponse)
def card_page(request: Request, work_id: int, card_id: str, as_of: int | None = None) -> Response:
    with read(request) as conn:
        info = work_nav(conn, work_id)
        card = get_card(conn, card_id)
        state = None
        if as_of is not None:
            book = [c for c in load_cards(conn, work_id) if c.id != card.id] + [card]
            state = state_as_of(card, as_of, book=BookTerms.of(book))
    return page(
        request,
        "card.html",
        title=card.name,
        work=info,
        card=card,
        kind=card_type(card.type),
        state=state,
        as_of=as_of,
        exclusion_kinds=EXCLUSION_KINDS,
        chapter_numbers=range(0, (info.latest_chapter or 0) + 1),
    )
