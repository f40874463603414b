"""What every layer shares: limits on the work and their errors, composite scores, output files written whole."""
