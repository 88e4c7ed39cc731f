"""Collect real answers of the shipped SmolLM2 model, for the parser's test corpus.

Plays short episodes of BabyAI-GoTo-v0, DnD-Encounter-GoblinAmbush-v0 and
TextAdventure-Lighthouse-v0 and asks the local model (llama.cpp, on the CPU) for
every decision, with the prompts `prompting.build_messages` makes for `LLMAgent`
at history=0 (the `direct` and `cot` strategies; temperature 0, and two seeds at
0.7 for variety; at most 64 tokens an answer). Each raw answer is written as one
JSON line with the legal options it was answering, in the record format of
`tests/data/llm_answers/` (see its README) but with `expected` and `note` left
empty: those are filled in BY HAND, reading each answer, never by running the
parser (the corpus exists to check the parser).

The episodes move on by a seeded random legal option, not by the model's parsed
answer, so which states get asked about does not depend on the parser under
test; the typing hint of text adventures is not offered, since a typed
"> command" is read by the agent, not by the parser.

    DUNGEONBENCH_LOCAL_LLM_THREADS=1 python scripts/collect_llm_answers.py \\
        --out /tmp/smollm2_raw.jsonl

It asks about 63 decisions (a state seen again in an episode is not asked twice).
Measured on a 2-core machine shared with other llama.cpp processes: 56 answers in
196 s with a quieter machine (an earlier setting of 6/3/5 decisions per episode), 63
in 320 s under a load of 4 to 5; D&D prompts (~850 tokens each) take most of it.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

import dungeonbench_gym
from dungeonbench_gym.llm.local import LocalLlamaClient
from dungeonbench_gym.llm.prompting import build_messages
from dungeonbench_gym.llm.strategies import get_strategy

# (env id, decisions asked per episode): D&D prompts are ~850 tokens, BabyAI's ~300
ENVS = (("BabyAI-GoTo-v0", 8), ("DnD-Encounter-GoblinAmbush-v0", 3),
        ("TextAdventure-Lighthouse-v0", 7))
# (strategy, temperature, seed): greedy answers, and two sampled seeds for variety
RUNS = (("direct", 0.0, 0), ("cot", 0.0, 0), ("direct", 0.7, 1), ("cot", 0.7, 2))
MAX_TOKENS = 64


def episode(env_id: str, decisions: int, strategy_name: str, temperature: float, seed: int,
            episode_seed: int):
    """Yield one record per decision of a short episode."""
    env = dungeonbench_gym.make(env_id, text=True)
    client = LocalLlamaClient(temperature=temperature, max_tokens=MAX_TOKENS, seed=seed)
    strategy = get_strategy(strategy_name)
    table = list(getattr(env.unwrapped, "option_table", ()) or ())
    mover = random.Random(episode_seed)
    _, info = env.reset(seed=episode_seed)
    asked: set[str] = set()   # a state seen again (BabyAI turning round) is not asked again
    for step in range(decisions):
        options = list(info["options"])
        messages = build_messages(env, info, [], strategy.instructions())
        prompt = json.dumps(messages)
        if prompt not in asked:
            asked.add(prompt)
            yield record(env_id, client.complete(messages), options, table, info,
                         strategy_name, temperature, seed, episode_seed, step)
        _, _, terminated, truncated, info = env.step(mover.choice(options).index)
        if terminated or truncated:
            break
    env.close()


def record(env_id, completion, options, table, info, strategy_name, temperature, seed,
           episode_seed, step) -> dict:
    """One answer with the options it answered, in the corpus's record format."""
    if table:   # the parser gets the whole table, as LLMAgent passes it
        labels = [o.label for o in table]
        assert all(table[o.index].label == o.label for o in options), "table order"
    else:       # options listed per decision (D&D): the legal ones are the table
        labels = [o.label for o in options]
        assert [o.index for o in options] == list(range(len(options))), "option indices"
    return {"id": f"{env_id.split('-')[0].lower()}-{strategy_name}-t{temperature:g}-s{seed}"
                  f"-e{episode_seed}-{step}",
            "answer": completion.text, "labels": labels,
            "legal": [o.index for o in options], "table": bool(table),
            "expected": None, "note": "",
            "source": {"env": env_id, "strategy": strategy_name, "temperature": temperature,
                       "seed": seed, "episode_seed": episode_seed, "step": step,
                       "decision": info.get("decision", "command"),
                       "finish_reason": completion.extra.get("finish_reason")}}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, required=True, help="JSON lines file to write")
    ap.add_argument("--episode-seed", type=int, default=0, help="env seed of the first episode")
    args = ap.parse_args(argv)
    started = time.perf_counter()
    count = 0
    with args.out.open("w", encoding="utf-8") as out:
        for n, (strategy, temperature, seed) in enumerate(RUNS):
            for env_id, decisions in ENVS:
                for answer in episode(env_id, decisions, strategy, temperature, seed,
                                      args.episode_seed + n):
                    out.write(json.dumps(answer, ensure_ascii=True) + "\n")
                    out.flush()
                    count += 1
                print(f"{time.perf_counter() - started:6.1f} s  {count:3d} answers  "
                      f"{env_id} {strategy} t={temperature:g} seed={seed}", flush=True)
    print(f"wrote {count} answers to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
