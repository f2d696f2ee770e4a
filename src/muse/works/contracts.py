"""Contracts of the works domain: what callers get back (frozen, JSON-ready)."""

from __future__ import annotations

from enum import StrEnum

from muse.core.contract import UnaliasedContract


class SourceKind(StrEnum):
    """Where a work's text comes from (spec 000 §2.2)."""

    own = "own"
    public_domain = "public_domain"
    licensed = "licensed"


class Purpose(StrEnum):
    production = "production"
    evaluation = "evaluation"


class SourceStatus(StrEnum):
    active = "active"
    suspended = "suspended"
    withdrawn = "withdrawn"


SOURCE_KIND_LABELS = {"own": "作者自有稿", "public_domain": "公版文本", "licensed": "授权参考书"}
STATUS_LABELS = {"active": "有效", "suspended": "暂停", "withdrawn": "已撤回"}


class WorkInfo(UnaliasedContract):
    id: int
    title: str
    source_kind: SourceKind
    allowed_purposes: tuple[Purpose, ...]
    source_status: SourceStatus
    source_version: str
    chapter_count: int
    han_count: int
    latest_chapter: int | None


class ChapterInfo(UnaliasedContract):
    number: int
    title: str
    volume: str | None
    han_count: int
    revision: int
    content_sha256: str


class ChapterText(UnaliasedContract):
    """One canonical chapter at one revision. Offsets into ``text`` are code point offsets."""

    work_id: int
    number: int
    title: str
    revision: int
    text: str
    content_sha256: str
    han_count: int


class AuthorizationSnapshot(UnaliasedContract):
    id: str
    work_id: int
    purpose: Purpose
    source_kind: SourceKind
    source_status: SourceStatus
    source_version: str
    created_at: str
