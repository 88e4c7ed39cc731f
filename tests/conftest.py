import os
import sys
import tempfile

import pytest

sys.path.insert(0, os.path.dirname(__file__))

# Tests never read or write the user's cache (generated Boxoban levels, ...): a
# fresh folder per run, set before any env is made, so worker processes inherit it.
os.environ["DUNGEONBENCH_CACHE_DIR"] = tempfile.mkdtemp(prefix="dungeonbench-test-cache-")
os.environ.pop("DUNGEONBENCH_BOXOBAN_DIR", None)
# one TextWorld game per task (a Treasure Hunter game takes about a minute to make)
os.environ.setdefault("DUNGEONBENCH_TEXTWORLD_POOL", "1")


@pytest.fixture(scope="session")
def llama_server():
    """The base URL of llama-cpp-python's server serving the shipped SmolLM2 (4,096-token
    context, chatml-function-calling), started once per session and stopped at its end. A
    missing llama_cpp.server fails the test with the install hint: CI installs it."""
    from dungeonbench_gym.llm.llama_server import llama_server as start

    with start() as base_url:
        yield base_url
