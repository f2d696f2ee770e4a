"""The five pre-writing stages, their schemas and gates (spec 001 §1A)."""
