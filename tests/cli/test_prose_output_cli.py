"""Prose printed by ``chapter show`` and ``candidate show`` is never hard-wrapped into a file."""

from muse.works.canonical import add_chapter
from muse.works.catalog import create_work

LONG = "话说那孙悟空" + "，一个筋斗十万八千里" * 30 + "。[bold]不是标记[/]\n第二段只有一句。"


def test_chapter_show_to_a_file_keeps_every_line_whole(muse, engine):
    with engine.begin() as conn:
        work_id = create_work(conn, "长句之书")
        add_chapter(conn, work_id, 1, "第一回　灵根孕育源流出", LONG)

    out = muse("chapter", "show", "1").stdout

    assert LONG in out
    assert max(len(line) for line in out.splitlines()) > 200  # not cut at 80 columns
