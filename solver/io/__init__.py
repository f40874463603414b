"""Reading and writing positions and games: grids, colon grids, CS 61B dumps, position files, FEN lines in bulk, PGN, EPD."""
