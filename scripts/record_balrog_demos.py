"""Record the BALROG protocol's few-shot demonstrations with the project's baselines.

One episode per env id, played by the family's baseline (`agents.BASELINES`) on the
env as the BALROG protocol makes it (`balrog_protocol.ENV_SETTINGS`), on seeds no
suite plays (DEMO_SEED and up); the first successful episode of `--tries` is kept
(else the one with the most progress), cut to `--max-steps` steps. Each step keeps
the observation the protocol's history shows (the long-term text) and the action
as the model would name it: a vocabulary name (`balrog_protocol.vocabulary`). Where
the baseline answers a game's question (NetHack's "in what direction?"), the
vocabulary action that sends the same key stands in for it ("west" for "direction
west"); a step no vocabulary name can stand for (an item letter: BALROG's
MiniHack vocabulary has none) is left out of the demonstration and counted in
its `left_out`.
Written to dungeonbench_gym/llm/demos/<env id>.json.

    python scripts/record_balrog_demos.py                 # every id of --suite balrog
    python scripts/record_balrog_demos.py --envs BabyAI-GoTo-v0,Crafter-v0
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import dungeonbench_gym  # noqa: E402
from dungeonbench_gym.agents import make_agent  # noqa: E402
from dungeonbench_gym.core import registry  # noqa: E402
from dungeonbench_gym.eval import suites  # noqa: E402
from dungeonbench_gym.llm.balrog_protocol import ENV_SETTINGS, vocabulary  # noqa: E402
from dungeonbench_gym.llm.demonstrations import DEMO_DIR, demo_path  # noqa: E402

DEMO_SEED = 1_000_000   # suites play seeds from 0: demonstrations never show an evaluated game
# TextWorld's pools are BALROG's 25 games and seed s plays game s % 25, so every seed
# shows a game some suite plays: its demonstrations play game 25 and up, our own
# games past BALROG's (reset's options name the game).
DEMO_OPTIONS = {"textworld": lambda k: {"game": 25 + k}}


def _namer(env):
    """index or typed command -> the vocabulary name a model would answer, or None."""
    vocab = vocabulary(env)
    if vocab.typed and not vocab.actions:
        return lambda action, label: label
    by_index = {o.index: o.label for o in vocab.actions}
    same_key = {}
    if env.unwrapped.family in ("nethack", "minihack"):
        from dungeonbench_gym.games.nethack.commands import KEYS
        same_key = {KEYS[i]: name for i, name in by_index.items()}
        return lambda action, label: by_index.get(action) or same_key.get(KEYS[action])
    return lambda action, label: by_index.get(action)


def play(env_id: str, seed: int, max_steps: int) -> dict:
    entry = registry.resolve_id(env_id)
    env = dungeonbench_gym.make(env_id, text=True, **ENV_SETTINGS.get(entry.family, {}))
    agent = make_agent("baseline", entry.family)
    agent.reset(env, seed)
    options = DEMO_OPTIONS[entry.family](seed - DEMO_SEED) if entry.family in DEMO_OPTIONS else None
    obs, info = env.reset(seed=seed, options=options)
    name_of = _namer(env)
    steps, done, left_out = [], False, 0
    while not done and len(steps) < max_steps:
        action = agent.act(obs, info)
        label = action if isinstance(action, str) else next(
            (o.label for o in info["options"] if o.index == action), str(action))
        name = name_of(action, label)
        if name is None:
            left_out += 1      # the model could not have said this
        else:
            steps.append({"observation": info["text"]["long_term"], "action": name})
        obs, _, terminated, truncated, info = env.step(action)
        done = terminated or truncated
    env.close()
    return {"env_id": env_id, "agent": "baseline", "seed": seed, **({"options": options} if options else {}),
            "success": bool(info["success"]),
            "progress": float(info["progress"]), "cut": not done, "left_out": left_out,
            "steps": steps}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--envs", default="", help="comma-separated ids (default: --suite balrog's)")
    p.add_argument("--tries", type=int, default=5, help="seeds tried per env")
    p.add_argument("--max-steps", type=int, default=50, help="steps kept per demonstration")
    p.add_argument("--out", default=str(DEMO_DIR))
    args = p.parse_args(argv)
    ids = ([i.strip() for i in args.envs.split(",") if i.strip()] if args.envs
           else [i for i, _ in suites.builtin("balrog").envs])
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for env_id in ids:
        best = None
        for k in range(args.tries):
            demo = play(env_id, DEMO_SEED + k, args.max_steps)
            if best is None or (demo["success"], demo["progress"]) > (best["success"], best["progress"]):
                best = demo
            if demo["success"]:
                break
        demo_path(env_id, out).write_text(json.dumps(best, indent=1) + "\n")
        print(f"{env_id}: seed {best['seed']}, {len(best['steps'])} steps, success "
              f"{best['success']}, progress {best['progress']:.2f}{' (cut)' if best['cut'] else ''}"
              f", {best['left_out']} left out")
    return 0


if __name__ == "__main__":
    sys.exit(main())
