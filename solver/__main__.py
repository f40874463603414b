import sys

from solver.app.cli import main

if __name__ == "__main__":  # (not in a worker process that multiprocessing starts by importing this module)
    sys.exit(main())
