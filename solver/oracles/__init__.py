"""The solving algorithms behind one contract (the Oracle): the reference solver, the retrograde engine and the search."""
