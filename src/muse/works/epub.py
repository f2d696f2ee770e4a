"""The EPUB writer behind ``muse export --format epub`` (the one module importing EbookLib).

One XHTML document per chapter (its heading as ``<h2>``, one ``<p>`` per line of prose), an
optional front-matter document, and a table of contents whose sections are the volumes.
"""

from __future__ import annotations

import html
import io
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ebooklib import epub

if TYPE_CHECKING:
    from muse.works.export import ExportedChapter

_CSS = "body { line-height: 1.8; } h1, h2 { text-align: center; } p { text-indent: 2em; }"


def _document(name: str, title: str, body_html: str) -> epub.EpubHtml:
    page = epub.EpubHtml(title=title, file_name=name, lang="zh")
    page.content = f"<h2>{html.escape(title)}</h2>\n{body_html}"
    page.add_link(href="style.css", rel="stylesheet", type="text/css")
    return page


def build_epub(
    *,
    title: str,
    author: str,
    identifier: str,
    front_matter: str,
    chapters: Sequence[ExportedChapter],
) -> bytes:
    from muse.works.export import paragraphs_html

    book = epub.EpubBook()
    book.set_identifier(identifier)
    book.set_title(title)
    book.set_language("zh")
    book.add_author(author)
    style = epub.EpubItem(
        uid="style", file_name="style.css", media_type="text/css", content=_CSS.encode()
    )
    book.add_item(style)
    spine: list[Any] = ["nav"]
    toc: list[Any] = []
    if front_matter.strip():
        front = _document("front.xhtml", "卷首", paragraphs_html(front_matter))
        book.add_item(front)
        spine.append(front)
        toc.append(front)
    sections: dict[str, list[Any]] = {}
    for index, chapter in enumerate(chapters, start=1):
        page = _document(
            f"chapter-{index:05d}.xhtml", chapter.heading, paragraphs_html(chapter.text)
        )
        book.add_item(page)
        spine.append(page)
        if chapter.volume is None:
            toc.append(page)
            continue
        if chapter.volume not in sections:
            sections[chapter.volume] = []
            toc.append((epub.Section(chapter.volume), sections[chapter.volume]))
        sections[chapter.volume].append(page)
    book.toc = toc
    book.spine = spine
    book.add_item(epub.EpubNcx())
    book.add_item(epub.EpubNav())
    buffer = io.BytesIO()
    epub.write_epub(buffer, book, {})
    return buffer.getvalue()
