import sys

from solver.app.cli import main

sys.exit(main())
