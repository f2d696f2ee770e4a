"""The offline evaluation chain (spec 000 §3.2, §10, §10.1; spec 001 §7)."""
