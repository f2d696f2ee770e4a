"""Plan files: errors name file, line and field; export → edit → import round-trips."""

from __future__ import annotations

import pytest
import yaml

from muse.core.errors import InvalidInput
from muse.planning.editing import export_text, import_file
from muse.planning.sections import get_section
from muse.planning.stages import STAGES
from muse.planning.yaml_io import dump_plan, template
from tests.support.plans import foundation, outline


def write(tmp_path, text: str, name: str = "plan.yaml"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


OUTLINE_WITH_ERRORS = """\
mainline: 一句话主线
volumes:
  - number: 1
    name: 第一卷
    goal: 入门
    emotional_endpoint: 扬眉吐气
    first_chapter: 1
    last_chapter: 10
    sketch: 粗纲
  - number: 2
    name: 第二卷
    goal: 成长
    core_conflict: ""
    emotional_endpoint: 悲壮
    first_chapter: zero
    last_chapter: 20
    sketch: 粗纲
current_volume:
  volume: 1
  beats:
    - {first_chapter: 1, last_chapter: 10, text: 入门}
"""


def test_errors_name_file_line_and_field(engine, work_id, tmp_path):
    path = write(tmp_path, OUTLINE_WITH_ERRORS)
    with pytest.raises(InvalidInput) as refused, engine.begin() as conn:
        import_file(conn, work_id, path)
    message = refused.value.message
    assert (
        f"{path}:3: 字段「volumes.0.core_conflict」（分卷粗纲 › 第 1 项 › 核心冲突）：缺失"
        in message
    )
    assert f"{path}:13: 字段「volumes.1.core_conflict」" in message and "不能为空" in message
    assert (
        f"{path}:15: 字段「volumes.1.first_chapter」（分卷粗纲 › 第 2 项 › 起始章）：应为整数"
        in message
    )


def test_yaml_syntax_errors_name_the_line(engine, work_id, tmp_path):
    path = write(tmp_path, "mainline: 主线\nvolumes: [1, 2\n")
    with pytest.raises(InvalidInput, match=rf"{path}:3: YAML 格式错误"), engine.begin() as conn:
        import_file(conn, work_id, path)


def test_the_stage_is_read_from_the_file(engine, work_id, tmp_path):
    path = write(tmp_path, yaml.safe_dump(foundation(), allow_unicode=True))
    with engine.begin() as conn:
        saved = import_file(conn, work_id, path)
        assert (saved.stage, get_section(conn, saved.section_id).origin) == (0, "import")
    with pytest.raises(InvalidInput, match="看不出是哪个阶段"), engine.begin() as conn:
        import_file(conn, work_id, write(tmp_path, "什么: 东西\n", "x.yaml"))


def test_export_then_import_round_trips(engine, work_id, tmp_path):
    path = write(tmp_path, yaml.safe_dump(outline(), allow_unicode=True))
    with engine.begin() as conn:
        first = import_file(conn, work_id, path)
        text = export_text(conn, work_id, 1)
    assert "#   volumes.goal：卷目标" in text and first.section_id in text
    with engine.begin() as conn:
        second = import_file(conn, work_id, write(tmp_path, text, "again.yaml"), stage=1)
        a, b = get_section(conn, first.section_id), get_section(conn, second.section_id)
    assert a.payload_sha256 == b.payload_sha256 and a.id != b.id


@pytest.mark.parametrize("stage", STAGES, ids=lambda s: s.key)
def test_an_unfilled_template_is_refused_field_by_field(engine, work_id, tmp_path, stage):
    path = write(tmp_path, dump_plan(stage, template(stage.contract)))
    with pytest.raises(InvalidInput) as refused, engine.begin() as conn:
        import_file(conn, work_id, path, stage=stage.number)
    assert f"{path}:" in refused.value.message
