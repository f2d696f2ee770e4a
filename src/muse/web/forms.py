"""Reading a submitted form without a multipart dependency: the workbench posts urlencoded forms.

The CSRF field has already been checked by :class:`muse.web.security.SecurityMiddleware`.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import parse_qs

from fastapi import Request

from muse.core.errors import InvalidInput
from muse.core.limits import MAX_BOOK_MB, MB

MAX_FORM_BYTES = 2_000_000  # an edited chapter is far below this (10,000 Han ≈ 30 kB)
# A book file travels base64 in an urlencoded form (≈ 4/3, plus escapes): the importer's own cap
# then refuses a file over MAX_BOOK_MB with its message.
MAX_UPLOAD_BYTES = int(MAX_BOOK_MB * MB * 1.5) + 1_000_000


@dataclass(frozen=True)
class Form:
    values: dict[str, list[str]]

    def get(self, name: str, default: str | None = None) -> str | None:
        got = self.values.get(name)
        return got[0] if got else default

    def all(self, name: str) -> list[str]:
        return list(self.values.get(name, []))

    def required(self, name: str, label: str) -> str:
        value = (self.get(name) or "").strip()
        if not value:
            raise InvalidInput(f"请填写{label}。")
        return value

    def integer(self, name: str, label: str) -> int | None:
        raw = (self.get(name) or "").strip()
        if not raw:
            return None
        try:
            return int(raw)
        except ValueError:
            raise InvalidInput(f"{label}必须是整数，收到「{raw}」。") from None


async def read_form(request: Request) -> Form:
    return await _read(request, MAX_FORM_BYTES)


async def read_big_form(request: Request) -> Form:
    """A form carrying a book file (the import page)."""
    return await _read(request, MAX_UPLOAD_BYTES)


async def _read(request: Request, limit: int) -> Form:
    body = await request.body()
    if len(body) > limit:
        raise InvalidInput("提交的内容太大，未处理。")
    text = body.decode("utf-8", "replace")
    return Form(parse_qs(text, keep_blank_values=True))
