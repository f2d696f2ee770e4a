"""The warm-up of a resident process: the tagger and every contract of the loaded modules."""

from __future__ import annotations

import subprocess
import sys


def test_warm_up_builds_every_contract_once():
    code = (
        "from muse.flow import warm_up\n"
        "from muse.flow.warming import _contracts\n"
        "import muse.context.writer_context as w\n"
        "assert not w.WriterContext.__pydantic_complete__\n"
        "first = warm_up()\n"
        "assert w.WriterContext.__pydantic_complete__\n"
        "assert all(m.__pydantic_complete__ for m in _contracts())\n"
        "again = warm_up()\n"
        "print(first.contracts, again.contracts, len(_contracts()))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    first, again, total = map(int, out.stdout.split())
    assert first > 30 and again == 0 and total >= first


def test_warm_up_loads_the_shared_tagger():
    code = (
        "import sys\n"
        "from muse.flow import warm_up\n"
        "assert 'rjieba' not in sys.modules\n"
        "warm_up()\n"
        "from muse.core import segmentation\n"
        "print(segmentation._instance is not None)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "True"


def test_warm_up_makes_the_schemas_of_the_writes_model_calls():
    code = (
        "from muse.agents import TOOL_SPECS\n"
        "from muse.agents import schemas\n"
        "from muse.core import segmentation\n"
        "from muse.flow import warm_up\n"
        "from muse.flow.warming import _WRITE_OUTPUTS\n"
        "assert schemas._schema.cache_info().currsize == 0\n"
        "done = warm_up()\n"
        "wanted = {*_WRITE_OUTPUTS, *(s.arguments for s in TOOL_SPECS.values())}\n"
        "print(done.schemas, schemas._schema.cache_info().currsize, len(wanted),\n"
        "      segmentation.rjieba_version.cache_info().currsize)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    made, cached, wanted, version = map(int, out.stdout.split())
    assert made == wanted >= 4 and cached >= wanted and version == 1
