"""Write the D&D coverage documents (docs/dnd-coverage.md and docs/dnd-coverage-<table>.md).

    python scripts/dnd_coverage.py            # regenerate
    python scripts/dnd_coverage.py --check    # exit 1 when a document is stale
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from dungeonbench_gym.dnd.verification import coverage

ROOT = Path(__file__).resolve().parent.parent


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="only report stale documents (exit 1 if any)")
    ap.add_argument("--docs", type=Path, default=ROOT / "docs", help="output folder (default: docs/)")
    args = ap.parse_args(argv)
    if args.check:
        bad = coverage.stale(args.docs)
        for f in bad:
            print(f"stale: {args.docs / f}")
        return 1 if bad else 0
    for path in coverage.write(args.docs):
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
