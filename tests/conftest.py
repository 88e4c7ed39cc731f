import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))

# Tests never read or write the user's cache (generated Boxoban levels, ...): a
# fresh folder per run, set before any env is made, so worker processes inherit it.
os.environ["DUNGEONBENCH_CACHE_DIR"] = tempfile.mkdtemp(prefix="dungeonbench-test-cache-")
os.environ.pop("DUNGEONBENCH_BOXOBAN_DIR", None)
# one TextWorld game per task (a Treasure Hunter game takes about a minute to make)
os.environ.setdefault("DUNGEONBENCH_TEXTWORLD_POOL", "1")
