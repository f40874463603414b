"""The generic tier solver (it knows nothing of Ataxx): the game interface, the manager, executors, stores, checkpoints, a Dask cluster."""
