"""Other programs and games: the UAI client and server, built-in players, CS 61B and colon-grid programs, verify and annotated games."""
