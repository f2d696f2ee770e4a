"""New works: an empty work (``catalog.create_work``) or a book file imported (拆书).

The import is the CLI's two steps in the page: the file is read in the browser (a small script
puts its bytes, base64, in the form: the workbench posts urlencoded forms only), the preview is
``muse import --dry-run`` (:func:`muse.works.importer.analyse`: chapters found, author notes
detected, warnings), and confirming runs ``muse import`` (:func:`muse.flow.book_import.
import_and_index`). A bad file gets the CLI's Chinese message and nothing is stored; a confirmed
import submitted twice imports once.
"""

from __future__ import annotations

import base64
import binascii

from fastapi import APIRouter, Depends, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from muse.core.errors import InvalidInput, MuseError
from muse.core.limits import MAX_BOOK_MB, refuse_oversized
from muse.flow import (
    SOURCE_CHOICES,
    ImportLimits,
    already_imported,
    import_and_index,
    source_kind_of,
)
from muse.web.deps import engine_of
from muse.web.forms import Form, read_big_form, read_form
from muse.web.render import page
from muse.works import SOURCE_KIND_LABELS, analyse, create_work

router = APIRouter()

SOURCES = tuple(SOURCE_CHOICES)


def _source_labels() -> dict[str, str]:
    return {key: SOURCE_KIND_LABELS.get(kind.value, key) for key, kind in SOURCE_CHOICES.items()}


@router.get("/works/new", response_class=HTMLResponse)
def new_work(request: Request) -> Response:
    return page(request, "work_new.html", title="新建作品", sources=_source_labels())


@router.post("/works/create", response_class=HTMLResponse)
def create(request: Request, form: Form = Depends(read_form)) -> Response:
    try:
        title = form.get("title") or ""  # create_work refuses an empty title, as for the CLI
        source = source_kind_of(form.get("source") or "own")
        with engine_of(request).begin() as conn:
            work_id = create_work(conn, title, source_kind=source)
    except MuseError as err:
        return _refused(request, err)
    return RedirectResponse(f"/works/{work_id}", status_code=303)


class _Upload:
    """What the import form carries: the file's bytes and the import options."""

    def __init__(self, form: Form) -> None:
        self.title = form.required("title", "书名")
        self.source = form.get("source") or "own"
        self.kind = source_kind_of(self.source)
        self.filename = form.get("filename") or "上传的文件"
        self.renumber = form.get("renumber") == "1"
        self.keep_notes = form.get("keep_notes") == "1"
        encoded = form.get("book") or ""
        if not encoded:
            raise InvalidInput("请选择要导入的小说文件（.txt 或 .md）。")
        try:
            self.data = base64.b64decode(encoded, validate=True)
        except (binascii.Error, ValueError):
            raise InvalidInput("上传的文件内容不完整，未导入；请重新选择文件。") from None
        refuse_oversized(
            len(self.data),
            MAX_BOOK_MB,
            what="小说文件",
            name=self.filename,
            flag="muse import --max-mb",
        )
        self.encoded = encoded

    @property
    def limits(self) -> ImportLimits:
        return ImportLimits(renumber=self.renumber, keep_notes=self.keep_notes)


@router.post("/works/import/preview", response_class=HTMLResponse)
def preview(request: Request, form: Form = Depends(read_big_form)) -> Response:
    try:
        upload = _Upload(form)
        report = analyse(upload.data, upload.title, **upload.limits.kwargs())[1]
    except MuseError as err:
        return _refused(request, err)
    return page(
        request,
        "import_preview.html",
        title="导入预览",
        report=report.to_dict(),
        upload=upload,
        sources=_source_labels(),
    )


@router.post("/works/import", response_class=HTMLResponse)
def confirm_import(request: Request, form: Form = Depends(read_big_form)) -> Response:
    engine = engine_of(request)
    try:
        upload = _Upload(form)
        existing = already_imported(engine, upload.data, upload.title)
        if existing is not None:
            return RedirectResponse(f"/works/{existing}?imported=repeated", status_code=303)
        report, _ = import_and_index(
            engine,
            upload.data,
            title=upload.title,
            source_kind=upload.kind,
            purposes=None,
            limits=upload.limits,
        )
    except MuseError as err:
        return _refused(request, err)
    return RedirectResponse(f"/works/{report.work_id}?imported=1", status_code=303)


def _refused(request: Request, err: MuseError) -> Response:
    return page(
        request,
        "queue_outcome.html",
        status_code=400,
        title="未导入" if "import" in request.url.path else "未创建",
        ok=False,
        lines=[err.message, *([err.hint] if err.hint else []), "没有写入任何内容。"],
        work_id=None,
        back="",
    )
