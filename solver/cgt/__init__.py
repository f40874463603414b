"""Combinatorial game theory: a board's game value (canonical form, stops, mean, temperature) and the researcher's table."""
