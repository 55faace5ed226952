"""`python -m ember.caching clear [FOLDER]`: remove cache entries (default: EMBER_CACHE_DIR or
the per-user cache folder; give a project folder to clear its `__pycache__` entries)."""

from __future__ import annotations

import sys

from ember.caching import cache_clear


def main(argv: list[str]) -> int:
    if not argv or argv[0] != "clear" or len(argv) > 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    removed = cache_clear(argv[1] if len(argv) == 2 else None)
    print(f"removed {removed} ember cache entr{'y' if removed == 1 else 'ies'}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
