"""Packaged YAML read from its install-time JSON: the same data, never stale, never required."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from muse.agents.contracts import load_roles
from muse.core import packaged_yaml
from muse.core.errors import ConfigError
from muse.core.packaged_yaml import PACKAGED, PackagedYamlError, load_packaged, precompile

PACKAGE = Path(packaged_yaml.__file__).resolve().parents[1]


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """A copy of the packaged YAML files, laid out as in the package, without any entry."""
    for relative in PACKAGED:
        target = tmp_path / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(PACKAGE / relative, target)
    return tmp_path


@pytest.mark.parametrize("relative", PACKAGED)
def test_the_entry_holds_the_data_pyyaml_reads(root: Path, relative: str) -> None:
    assert precompile(root) == len(PACKAGED)
    path = root / relative
    entry = json.loads((path.parent / "__yamlcache__" / f"{path.name}.json").read_text("utf-8"))
    expected = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert entry["data"] == expected
    assert load_packaged(path) == expected


def test_an_edited_file_is_parsed_afresh(root: Path) -> None:
    precompile(root)
    path = root / "agents" / "roles.yaml"
    path.write_text(path.read_text(encoding="utf-8") + "\nextra_key: 1\n", encoding="utf-8")
    assert load_packaged(path)["extra_key"] == 1


@pytest.mark.parametrize("damage", ["", "{not json", '{"sha256": "x"}', "[1, 2]"])
def test_a_damaged_or_foreign_entry_is_ignored(root: Path, damage: str) -> None:
    path = root / "agents" / "roles.yaml"
    entry = path.parent / "__yamlcache__" / f"{path.name}.json"
    entry.parent.mkdir()
    entry.write_text(damage, encoding="utf-8")
    assert load_packaged(path) == yaml.safe_load(path.read_text(encoding="utf-8"))


@pytest.mark.parametrize(
    "text", ["when: 2024-05-01\n", "1: one\n2: two\n"], ids=["a date", "integer keys"]
)
def test_data_json_would_change_gets_no_entry(tmp_path: Path, monkeypatch, text: str) -> None:
    (tmp_path / "odd.yaml").write_text(text, encoding="utf-8")
    monkeypatch.setattr(packaged_yaml, "PACKAGED", ("odd.yaml",))
    assert precompile(tmp_path) == 0
    assert not (tmp_path / "__yamlcache__" / "odd.yaml.json").exists()
    assert load_packaged(tmp_path / "odd.yaml") == yaml.safe_load(text)


def test_invalid_yaml_is_a_clear_error(tmp_path: Path) -> None:
    broken = tmp_path / "roles.yaml"
    broken.write_text("roles: [unclosed\n", encoding="utf-8")
    with pytest.raises(PackagedYamlError):
        load_packaged(broken)
    with pytest.raises(ConfigError, match="角色合同文件"):
        load_roles(broken)


def test_a_fresh_entry_spares_the_yaml_import(root: Path) -> None:
    precompile(root)
    code = (
        "import sys\n"
        "from pathlib import Path\n"
        "from muse.core.packaged_yaml import load_packaged\n"
        f"data = load_packaged(Path({str(root / 'agents' / 'roles.yaml')!r}))\n"
        "print(bool(data), 'yaml' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["True", "False"]
