"""The game: boards and their symmetries, rule sets, positions and moves, FEN, notation, perft, the rules as arrays for the kernels."""
