"""A worker process for the cross-process test: ``python -m tests.worker.record_worker URL LOG NAME``.

It registers the recording job kind and runs every due job once, like ``muse worker --once``.
"""

import sys
from pathlib import Path

from muse.store.engine import make_engine
from muse.worker.handlers import register_handler
from muse.worker.loop import Worker
from tests.worker.records import RECORD_KIND, record_handler


def main() -> None:
    url, log, name = sys.argv[1], Path(sys.argv[2]), sys.argv[3]
    register_handler(RECORD_KIND, record_handler(log))
    engine = make_engine(url)
    runs = Worker(engine, worker_id=name).run_once()
    engine.dispose()
    print(len(runs))


if __name__ == "__main__":
    main()
