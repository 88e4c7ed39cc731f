"""Text-adventure recall: how much of each walkthrough the valid-action detector offers.

For every game, the walkthrough is played from the start; at each step the detector's
options are checked for one that does to the world what the walkthrough's command does
(`games/textadventure/recall.py` says exactly what is compared), and that option is the
one played, so the run is also a replay from the options alone. Printed per game:
recall, the misses (command and what was offered), and whether the replay earned every
achievement the walkthrough earns; then recall pooled per set.

Sets (`--sets`, comma-separated):
  ours       the shipped games (scenarios/textadventures/<game>/: the two registered
             and the three written to measure the detector)
  textworld  `--textworld N` games made by TextWorld's own generator (the `textworld`
             wheel, Inform 7 compiler included: offline), seeded, across its two grammar
             themes (house, basic), with and without adjectives in names, and quest lengths
             1 to 10 over 2 to 10 rooms; cached under the project's cache folder. Their
             achievements file asks for the win banner and the full score.
  story      `--story S.z5 --walkthrough W --achievements A`: a game of your own

    python benchmarks/textadventure_recall.py --sets ours,textworld --textworld 50
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from dungeonbench_gym.games.textadventure import recall  # noqa: E402
from dungeonbench_gym.games.textadventure.env import game_files, shipped_games  # noqa: E402


def our_games() -> list[tuple[str, Path, Path, Path]]:
    return [(game, *(game_files(game)[k] for k in ("story", "walkthrough", "achievements")))
            for game in shipped_games()]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", default="ours,textworld")
    parser.add_argument("--textworld", type=int, default=50, help="games in the TextWorld set")
    parser.add_argument("--story")
    parser.add_argument("--walkthrough")
    parser.add_argument("--achievements")
    parser.add_argument("--misses", type=int, default=10, help="misses listed per game")
    parser.add_argument("--json", help="write the per-game figures here")
    args = parser.parse_args()
    sets = [s.strip() for s in args.sets.split(",") if s.strip()]
    games: dict[str, list] = {}
    if "ours" in sets:
        games["ours"] = our_games()
    if "textworld" in sets:
        start = time.perf_counter()
        games["textworld"] = [recall.textworld_game(i) for i in range(args.textworld)]
        print(f"textworld set: {args.textworld} games ready in "
              f"{time.perf_counter() - start:.0f} s", flush=True)
    if "story" in sets or args.story:
        if not (args.story and args.walkthrough and args.achievements):
            parser.error("--story needs --walkthrough and --achievements")
        games["story"] = [(Path(args.story).stem, Path(args.story), Path(args.walkthrough),
                           Path(args.achievements))]
    print(f"machine: {platform.node()}, {os.cpu_count()} CPUs, Python "
          f"{platform.python_version()}; one run, detector on one interpreter", flush=True)
    rows = []
    for set_name, members in games.items():
        covered = steps = finished = 0
        for name, story, walk, achieve in members:
            report = recall.measure(story, walk, achieve)
            print(recall.render(report, args.misses), flush=True)
            covered += report.covered
            steps += len(report.steps)
            finished += report.finished_from_options
            rows.append({"set": set_name, "game": name, "steps": len(report.steps),
                         "covered": report.covered, "recall": report.recall,
                         "no_effect": sum(s.no_effect for s in report.steps),
                         "lost": report.lost, "median_ms": report.median_ms,
                         "misses": [s.command for s in report.misses]})
        print(f"== {set_name}: recall {covered}/{steps} ({100 * covered / max(steps, 1):.1f}%), "
              f"{finished}/{len(members)} games finished from the options alone", flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
