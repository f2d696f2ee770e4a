"""Retrieval plan, as-of view, prose re-read, manifest, evidence, WriterContext (spec 000 §5–§8)."""
