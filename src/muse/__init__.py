"""Muse: an AI writing system for long Chinese web novels."""

__version__ = "0.1.0"
