"""The command line, the benchmarks and the pictures."""
