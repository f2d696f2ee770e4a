"""Typed cards, aliases, milestones, relations, state-as-of, drafts, conflicts, fact ledger."""
