"""Production state machine, candidates, decisions, accept preflight, canonical commit (spec 05)."""
