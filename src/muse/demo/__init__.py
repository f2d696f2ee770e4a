"""Demo data: the first four chapters of 西游记 (public domain), cards and a fine outline."""
