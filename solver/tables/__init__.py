"""Ataxx tablebases: every position numbered, Ataxx as a tier game, the file format, building, probing, checks."""
