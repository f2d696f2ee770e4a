"""Role contracts, model policy, prompts, providers, read-only tools, dispatch (spec 003)."""
