"""The prompt templates compiled at install (muse.agents.template_cache): used when they match
their source, ignored when not, and never written at run time."""

from __future__ import annotations

import marshal
import shutil
from pathlib import Path

import jinja2
import pytest
from jinja2.bccache import bc_magic

from muse.agents.prompts import ENVIRONMENT_OPTIONS, PROMPTS_DIR
from muse.agents.template_cache import InstalledTemplateCache, precompile


def _env(cache: InstalledTemplateCache, root: Path = PROMPTS_DIR) -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(root)), bytecode_cache=cache, **ENVIRONMENT_OPTIONS
    )


def _bucket(cache: InstalledTemplateCache, root: Path, name: str) -> jinja2.bccache.Bucket:
    env = _env(cache, root)
    source, filename, _ = env.loader.get_source(env, name)  # type: ignore[union-attr]
    return cache.get_bucket(env, name, filename, source)


def test_every_template_is_precompiled_to_the_code_jinja_compiles(tmp_path: Path) -> None:
    assert precompile(tmp_path) == len(list(PROMPTS_DIR.rglob("*.j2"))) > 0
    cache = InstalledTemplateCache(tmp_path, ENVIRONMENT_OPTIONS)
    env = _env(InstalledTemplateCache(tmp_path / "none", ENVIRONMENT_OPTIONS))
    for name in env.list_templates(extensions=["j2"]):
        bucket = _bucket(cache, PROMPTS_DIR, name)
        assert bucket.code is not None, name
        source, filename, _ = env.loader.get_source(env, name)  # type: ignore[union-attr]
        fresh = env.compile(source, name, filename)
        assert marshal.dumps(bucket.code) == marshal.dumps(fresh), name


def test_an_edited_template_is_compiled_from_its_new_source(tmp_path: Path) -> None:
    root = tmp_path / "prompts"
    shutil.copytree(PROMPTS_DIR, root, ignore=shutil.ignore_patterns("__jinjacache__"))
    cache_dir = tmp_path / "cache"
    cache = InstalledTemplateCache(cache_dir, ENVIRONMENT_OPTIONS, writable=True)
    name = "writer/generate.md.j2"
    _env(cache, root).get_template(name)  # written once
    assert _bucket(cache, root, name).code is not None
    path = root / name
    path.write_text(path.read_text(encoding="utf-8") + "\n新增的一行。\n", encoding="utf-8")
    reading = InstalledTemplateCache(cache_dir, ENVIRONMENT_OPTIONS)
    assert _bucket(reading, root, name).code is None  # stale: Jinja compiles the new source
    _env(cache, root).get_template(name)  # (the install step writes the new code)
    code = _bucket(reading, root, name).code
    assert code is not None and "新增的一行".encode() in marshal.dumps(code)


def test_the_run_time_cache_writes_nothing(tmp_path: Path) -> None:
    cache = InstalledTemplateCache(tmp_path / "cache", ENVIRONMENT_OPTIONS)
    _env(cache).get_template("writer/generate.md.j2")
    assert not (tmp_path / "cache").exists()


@pytest.mark.parametrize("changed", [{"trim_blocks": False}, {"lstrip_blocks": False}])
def test_other_environment_options_use_other_entries(tmp_path: Path, changed: dict) -> None:
    precompile(tmp_path)
    other = InstalledTemplateCache(tmp_path, {**ENVIRONMENT_OPTIONS, **changed})
    assert _bucket(other, PROMPTS_DIR, "writer/generate.md.j2").code is None


@pytest.mark.parametrize("damage", [b"", b"garbage", None])
def test_a_damaged_entry_is_compiled_from_source(tmp_path: Path, damage: bytes | None) -> None:
    precompile(tmp_path)
    cache = InstalledTemplateCache(tmp_path, ENVIRONMENT_OPTIONS)
    name = "writer/generate.md.j2"
    entry = tmp_path / f"{_bucket(cache, PROMPTS_DIR, name).key}.cache"
    good = entry.read_bytes()
    # the magic header and then a broken checksum pickle, or an empty / foreign file
    entry.write_bytes(good[: len(bc_magic)] + b"\x80\x05broken" if damage is None else damage)
    assert _bucket(cache, PROMPTS_DIR, name).code is None
    assert _env(cache).get_template(name) is not None
