"""What a value means and how it is reported: analysis (SPEC sections 4 and 5), certificates, reports, the Solver front door, the cache, batches."""
