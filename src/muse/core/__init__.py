"""Kernel: hashing, text normalisation, Han counting, rounding, ids, clock, errors.

Nothing here imports from other muse packages.
"""
