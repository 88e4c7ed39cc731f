"""Time the answer parser on the worst answer shapes found, at 1 MB each.

Each case is a long, repetitive answer of the kind that made the old parser
quadratic (every "Final answer:" rescanning the rest of its line, every unclosed
"<action>" rescanning the rest of the text, fuzzy repair against every label) or
that stresses one regex. Each is parsed against the BabyAI table (6 labels) and
the NetHack table (~140 labels), `--repeat` times with the parser's word cache
cleared first (a cold parse), and the script prints the best and the worst time
per case and the worst over all cases; it exits 1 if any parse took longer than
`--limit-ms` (default 50).

`--uncapped` also lifts the parser's 20,000-character read limit (answers longer
than that are read from their end) and times every case at 64 KB, 256 KB and
1 MB, to show the parsing itself is linear: the 1 MB / 64 KB ratio should be
near 16, not 256.

Usage: python benchmarks/parser_speed.py [--size 1000000] [--repeat 3] [--limit-ms 50] [--uncapped]
"""

from __future__ import annotations

import argparse
import platform
import sys
import time

from dungeonbench_gym.core.options import option_table
from dungeonbench_gym.games.nethack.commands import OPTION_TABLE as NETHACK
from dungeonbench_gym.llm import parsing

BABYAI = option_table(["turn left", "turn right", "go forward", "pick up", "drop", "toggle"])
TABLES = {"babyai": (BABYAI, [BABYAI[i] for i in (0, 1, 2, 5)]),
          "nethack": (NETHACK, list(NETHACK[::2]))}


def cases(size: int) -> dict[str, str]:
    """Answers of about `size` characters, each repeating one troublesome piece."""
    def repeat(piece: str) -> str:
        return (piece * (size // len(piece) + 1))[:size]

    junk_words = " ".join(f"Action: zq{n:x}" for n in range(size // 12))   # distinct spans, fuzzy each
    return {
        "option 3 ...": repeat("option 3 "),
        "[[[[": repeat("["),
        "{{{{": repeat("{"),
        "the the the": repeat("the "),
        "label repeated": repeat("go forward "),
        "two labels": repeat("turn left turn right "),
        "a million digits": repeat("1"),
        "digits and spaces": repeat("1 "),
        "1. 1. 1.": repeat("1. "),
        "<action> unclosed": repeat("<action>"),
        "<action>x</action>": repeat("<action>x</action>"),
        "Final answer: x 20k": repeat("Final answer: "),
        "Final answer: banana": repeat("Final answer: banana\n"),
        "Action: distinct junk": junk_words[:size],
        "I choose I choose": repeat("I choose "),
        "answer is answer is": repeat("answer is "),
        '{"action": open JSON': repeat('{"action": '),
        '{"action": "x"} many': repeat('{"action": "zz"} '),
        "-3 signs": repeat("\u22123 "),
        "zero-width": repeat("\u200b2"),
        "spaces then x": " " * (size - 1) + "x",
        "newlines then x": "\n" * (size - 1) + "x",
        "code fences": repeat("```"),
        "punctuation": repeat(".,;:!?"),
        "no. no. no.": repeat("no."),
        "I'm sorry": repeat("I'm sorry "),
    }


def time_parse(text: str, table, legal, repeat: int) -> tuple[float, float]:
    """(best, worst) seconds of `repeat` cold parses."""
    times = []
    for _ in range(repeat):
        parsing._words.cache_clear()
        start = time.perf_counter()
        parsing.parse_answer(text, legal, table)
        times.append(time.perf_counter() - start)
    return min(times), max(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=1_000_000, help="characters per answer")
    parser.add_argument("--repeat", type=int, default=3, help="timed parses per case and table")
    parser.add_argument("--limit-ms", type=float, default=50.0, help="fail above this")
    parser.add_argument("--uncapped", action="store_true",
                        help="also time the parser with its read limit lifted, at 64K/256K/1M")
    args = parser.parse_args()
    print(f"python {platform.python_version()} on {platform.machine()}, "
          f"{args.size:,} characters per answer, {args.repeat} cold parses each")
    print(f"{'case':24s} {'table':8s} {'best ms':>8s} {'max ms':>8s}")
    worst = 0.0
    for name, text in cases(args.size).items():
        for table_name, (table, legal) in TABLES.items():
            best, slowest = time_parse(text, table, legal, args.repeat)
            worst = max(worst, slowest)
            print(f"{name:24s} {table_name:8s} {best * 1e3:8.1f} {slowest * 1e3:8.1f}", flush=True)
    print(f"worst parse over all cases: {worst * 1e3:.1f} ms (limit {args.limit_ms:g} ms)")

    if args.uncapped:
        cap = parsing._MAX_CHARS
        parsing._MAX_CHARS = sys.maxsize
        try:
            sizes = (64_000, 256_000, 1_000_000)
            print(f"\nread limit lifted: best of {args.repeat} cold parses (BabyAI table), ms")
            print(f"{'case':24s} " + " ".join(f"{s // 1000:>6d}K" for s in sizes) + "   1M/64K")
            table, legal = TABLES["babyai"]
            per_size = {size: cases(size) for size in sizes}
            for name in per_size[sizes[0]]:
                bests = [time_parse(per_size[size][name], table, legal, args.repeat)[0] for size in sizes]
                ratio = bests[-1] / bests[0] if bests[0] > 0 else float("nan")
                print(f"{name:24s} " + " ".join(f"{b * 1e3:7.1f}" for b in bests) + f"   {ratio:6.1f}",
                      flush=True)
        finally:
            parsing._MAX_CHARS = cap
    return 0 if worst * 1e3 <= args.limit_ms else 1


if __name__ == "__main__":
    sys.exit(main())
