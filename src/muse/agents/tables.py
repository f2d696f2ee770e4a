"""Tables of the agents layer (receipts, prompts and outputs, tool-read ledger)."""
