"""Kernel: hashing, text normalisation, Han counting, rounding, ids, clock, errors.

Nothing here imports from other muse packages. The face of the kernel is its modules: each is a
small leaf with one concern and no state to hide (``from muse.core.ids import new_id``), so
``__all__`` names the modules, not their contents, and importing ``muse.core`` imports none of
them (docs/architecture.md §2).
"""

__all__ = [
    "canonical",
    "clock",
    "compile_cache",
    "contract",
    "errors",
    "faces",
    "faults",
    "files",
    "ids",
    "length_target",
    "limits",
    "packaged_yaml",
    "process",
    "prose_chars",
    "redaction",
    "rounding",
    "secret_sources",
    "segmentation",
    "text",
    "yaml_safe",
]
