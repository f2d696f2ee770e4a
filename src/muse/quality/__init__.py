"""Mechanical gates, the semantic detector with anti-forgery checks, and the judge (spec 06)."""
