"""Demo data: the first four chapters of 西游记 (public domain), cards and a fine outline.

The face of this package is ``python -m muse.demo`` (``make demo``); no package imports it, so
``__all__`` is empty.
"""

__all__ = []
