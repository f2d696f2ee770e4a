"""Reading plan files the author edits by hand (YAML). Errors name the file and the problem."""

from __future__ import annotations

from pathlib import Path

import yaml

from muse.core.errors import InvalidInput


def load_yaml(path: Path) -> dict:
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.MarkedYAMLError as err:
        mark = err.problem_mark
        where = f"第 {mark.line + 1} 行第 {mark.column + 1} 列" if mark else ""
        raise InvalidInput(f"{path}：YAML 格式错误，{where}：{err.problem}") from None
    except UnicodeDecodeError:
        raise InvalidInput(f"{path}：不是 UTF-8 文本。") from None
    if not isinstance(data, dict) or not data:
        raise InvalidInput(f"{path}：内容必须是非空的键值对象。")
    return data
