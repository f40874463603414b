"""The ``cache`` command: the solved-position cache looked at or cleared."""

from __future__ import annotations

import argparse
import json

from solver.app.commands.common import COMMANDS, EXIT_OK, Commands
from solver.solve.cache import Cache, default_cache_path


def add_cache(commands: Commands) -> None:
    p = commands.add_parser("cache", help=COMMANDS["cache"], description="Look at or clear the solved-position cache.")
    p.add_argument("action", choices=("stats", "clear"))
    p.add_argument("--cache", metavar="PATH", help=f"the cache file (default: {default_cache_path()})")
    p.add_argument("--json", action="store_true", help="stats as JSON")
    p.set_defaults(run=cache_command, parser=p)


def cache_command(args: argparse.Namespace) -> int:
    cache = Cache(args.cache or default_cache_path(), make_directory=args.cache is None)  # CacheError: reported by main()
    try:
        if args.action == "clear":
            n = cache.clear()
            print(f"cleared {n:,} cached results from {cache.path}")
            return EXIT_OK
        st = cache.stats()
    finally:
        cache.close()
    if args.json:
        print(json.dumps(st))
        return EXIT_OK
    print(f"cache: {st['path']}")
    print(f"size: {st['bytes'] / 1024:,.0f} KiB")
    print(f"results: {st['total']:,}")
    for rules, kinds in st["positions"].items():
        print(f"  {rules}: {kinds.get('side', 0):,} positions, {kinds.get('board', 0):,} orthodox summaries")
    return EXIT_OK
