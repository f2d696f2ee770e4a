"""The sentence- and character-aware diff of two candidate versions."""

import pytest

from muse.flow.diff import diff_texts, segment

OLD = "林远走进山门。他停下脚步。\n“走吧。”苏晴说道。"
NEW = "林远走进山门。他回头望了一眼。\n“走吧。”苏晴说道。\n钟声响起。"


def _apply(old: str, changes) -> str:
    """Rebuild the new text from the old one and the changes (old offsets, back to front)."""
    text = old
    for c in sorted(changes, key=lambda c: c.old_start, reverse=True):
        assert text[c.old_start : c.old_end] == c.old
        text = text[: c.old_start] + c.new + text[c.old_end :]
    return text


def test_sentences_keep_their_closing_quotes_and_line_breaks_are_units():
    units = segment(OLD)
    assert [u.text for u in units] == [
        "林远走进山门。",
        "他停下脚步。",
        "\n",
        "“走吧。”",
        "苏晴说道。",
    ]
    assert [(u.line, u.start) for u in units] == [(1, 0), (1, 7), (1, 13), (2, 14), (2, 19)]
    assert "".join(u.text for u in units) == OLD


def test_known_pair_structured():
    diff = diff_texts(OLD, NEW)
    first, second = diff.changes
    assert (first.op, first.old, first.new) == ("replace", "他停下脚步。", "他回头望了一眼。")
    assert (first.old_line, first.old_start, first.old_end) == (1, 7, 13)
    assert (first.new_start, first.new_end) == (7, 15)
    assert [(s.op, s.text) for s in first.spans] == [
        ("equal", "他"),
        ("delete", "停下脚步"),
        ("insert", "回头望了一眼"),
        ("equal", "。"),
    ]
    assert (second.op, second.new, second.new_start) == ("insert", "\n钟声响起。", 26)
    assert (diff.deleted_chars, diff.inserted_chars) == (4, 12)
    assert _apply(OLD, diff.changes) == NEW


def test_known_pair_unified():
    assert diff_texts(OLD, NEW).unified(old_label="v1", new_label="v2").splitlines() == [
        "--- v1",
        "+++ v2",
        "@@ -1 +1 @@",
        " 林远走进山门。",
        "-他停下脚步。",
        "+他回头望了一眼。",
        "~他[-停下脚步-]{+回头望了一眼+}。",
        "@@ -2 +2 @@",
        " 苏晴说道。",
        "+↵钟声响起。",
    ]


def test_identical_texts_have_no_changes():
    diff = diff_texts(OLD, OLD)
    assert diff.identical and diff.unified() == "" and diff.to_dict()["changes"] == []


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("", "全新的一章。"),
        ("整章删去。", ""),
        ("甲。乙。丙。", "丙。乙。甲。"),
        ("一段\n\n两段", "一段两段"),
        ("没有句号的句子", "没有句号的句子，又加了半句"),
    ],
)
def test_the_changes_rebuild_the_new_text(old, new):
    diff = diff_texts(old, new)
    assert _apply(old, diff.changes) == new
    rebuilt_new = "".join(s.text for c in diff.changes for s in c.spans if s.op != "delete")
    assert rebuilt_new == "".join(c.new for c in diff.changes)


def test_hunk_header_names_the_line_of_its_first_shown_sentence():
    old = "第一行。\n第二行甲。第二行乙。\n第三行。"
    new = "第一行。\n第二行甲。第二行改。\n第三行。"
    lines = diff_texts(old, new).unified().splitlines()

    assert lines[2] == "@@ -2 +2 @@"  # the context sentence shown first is on line 2
    assert lines[3] == " 第二行甲。"


def test_hunk_header_skips_a_leading_line_break_of_the_context():
    old = "第一行。\n第二行。"
    new = "第一行。\n新的第二行。"
    lines = diff_texts(old, new).unified().splitlines()

    assert lines[2] == "@@ -2 +2 @@"  # the context before the change is only the line break
    assert lines[3] == "-第二行。"
