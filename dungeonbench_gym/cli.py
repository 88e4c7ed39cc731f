"""The `dungeonbench-gym` command: list, play, eval, summarize, compare, check, prepare,
achievements check."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from .agents.spec import MIN_CONTEXT_TOKENS, ON_CLIENT_ERROR, PROTOCOLS, TOOL_PROTOCOLS
from .core import registry
from .core.errors import DungeonBenchError
from .core.options import find_option


def _whole_number(low: int, what: str):
    """An argparse type: a whole number >= low; anything else is a usage error (status 2)."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number; {what}") from None
        if value < low:
            raise argparse.ArgumentTypeError(f"{value} is below {low}; {what}")
        return value
    parse.__name__ = "whole number"   # argparse names the type in its own messages
    return parse


def _positive_seconds(what: str):
    """An argparse type: a finite number of seconds above 0; anything else is a usage error."""
    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds; {what}") from None
        if not (0 < value < float("inf")):
            raise argparse.ArgumentTypeError(f"{text} is not above 0 seconds; {what}")
        return value
    parse.__name__ = "number of seconds"
    return parse


_SEED = _whole_number(0, "give a seed of 0 or more (episode k uses seed + k)")


def _select_ids(spec: str) -> list[str]:
    """'all', a family name, or comma-separated ids."""
    if spec == "all":
        return registry.ids()
    families = {e.family for e in registry.REGISTRY.values()}
    out: list[str] = []
    for part in filter(None, (p.strip() for p in spec.split(","))):
        out.extend(registry.ids(part) if part in families else [registry.resolve_id(part).id])
    return out


# ----------------------------------------------------------------------------- list
def cmd_list(args) -> int:
    entries = [registry.REGISTRY[i] for i in _select_ids(args.envs)]
    if args.json:
        print(json.dumps([{"id": e.id, "gym_id": e.gym_id, "family": e.family,
                           "actions": e.actions, "max_steps": e.max_steps, "metric": e.metric,
                           "kwargs": e.kwargs} for e in entries], indent=1))
        return 0
    rows = [("id", "family", "N", "max steps", "metric")]
    rows += [(e.id, e.family, str(e.actions), str(e.max_steps or "-"), e.metric) for e in entries]
    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    for r in rows:
        print("  ".join(c.ljust(w) for c, w in zip(r, widths)) + "  " + r[4])
    print(f"\n{len(entries)} envs; make one with "
          "gymnasium.make('dungeonbench_gym:DungeonBench/<id>')")
    return 0


# ----------------------------------------------------------------------------- play
def cmd_play(args, stdin=None, stdout=None) -> int:
    stdin = stdin or sys.stdin
    out = stdout or sys.stdout
    entry = registry.resolve_id(args.env_id)
    env = registry.make(entry.id, text=True)
    obs, info = env.reset(seed=args.seed)
    steps = 0
    while True:
        _show(out, info, steps)
        choice = _ask(stdin, out, info["options"])
        if choice is None:
            out.write("Bye.\n")
            break
        obs, reward, terminated, truncated, info = env.step(choice)
        steps += 1
        if reward:
            out.write(f"(reward {reward:+g})\n")
        if terminated or truncated:
            _show(out, info, steps, options=False)
            out.write(f"Episode over ({'terminated' if terminated else 'step limit'}): "
                      f"progress {info['progress']:.2f}, success {info['success']}.\n")
            break
    env.close()
    return 0


def _show(out, info, steps, options=True) -> None:
    text = info["text"]
    out.write(f"\n--- step {steps} · progress {info['progress']:.2f} ---\n")
    out.write(text["long_term"].rstrip() + "\n")
    if text["short_term"]:
        out.write(text["short_term"].rstrip() + "\n")
    if options:
        out.write(f"Choose ({info['decision']}):\n")
        for o in info["options"]:
            out.write(f"  [{o.index}] {o.label}\n")


def _ask(stdin, out, options) -> int | None:
    while True:
        out.write("> ")
        out.flush()
        line = stdin.readline()
        if not line or line.strip().lower() in {"q", "quit", "exit"}:
            return None
        found = find_option(options, line)
        if found is not None:
            return found.index
        out.write(f"'{line.strip()}' is not one of the options: answer with a number in "
                  "brackets or a label (q quits).\n")


# ----------------------------------------------------------------------------- eval
def _agent_specs(args) -> list:
    from .agents.spec import AgentSpec, check

    kinds = [a.strip() for a in args.agents.split(",") if a.strip()]
    if args.label and len(kinds) > 1:
        raise DungeonBenchError("--label names one agent; run one --agent at a time with it")
    specs = []
    for kind in kinds:
        if kind == "llm":
            spec = AgentSpec.create("llm", args.label, client=args.client, model=args.model,
                                    strategy=args.strategy, history=args.history,
                                    base_url=args.base_url, temperature=args.temperature,
                                    max_tokens=args.max_tokens, vision=args.vision or None,
                                    tools=args.tools or None, max_tool_calls=args.max_tool_calls,
                                    on_client_error=args.on_client_error,
                                    context_tokens=args.context_tokens, timeout_s=args.timeout,
                                    tool_protocol=args.tool_protocol,
                                    protocol=None if args.protocol == "options" else args.protocol)
        elif kind == "sb3":
            spec = AgentSpec.create("sb3", args.label, model_path=args.model_path)
        else:
            spec = AgentSpec.create(kind, args.label)
        check(spec)   # a missing key or model file fails here, before any episode
        specs.append(spec)
    return specs


def cmd_eval(args) -> int:
    from .eval import runner, suites, summary

    specs = _agent_specs(args)
    if args.suite:
        suite = suites.resolve(args.suite, args.episodes)
        envs, seed = suite.envs, suite.seed if args.seed is None else args.seed
        max_steps = args.max_steps if args.max_steps is not None else suite.max_steps
        for note in suite.notes:
            print(f"note: {suite.name}: {note}", file=sys.stderr)
    else:
        envs = [(i, args.episodes or 10) for i in _select_ids(args.envs)]
        seed, max_steps = args.seed or 0, args.max_steps
    tasks, skipped = runner.plan(specs, envs, seed=seed, max_steps=max_steps)
    for agent, env_id in skipped:
        print(f"note: no '{agent}' agent for {env_id}; skipped", file=sys.stderr)
    out = Path(args.out)
    print(f"{len(tasks)} episodes ({len(specs)} agents x {len(envs)} envs) -> {out}/ with "
          f"{args.workers} workers ({args.backend})", file=sys.stderr)
    settings = {"seed": seed, "max_steps": max_steps, "agents": [s.describe() for s in specs],
                "envs": [list(e) for e in envs], "suite": args.suite or None}
    counts = runner.run(tasks, out, workers=args.workers, progress_bar=not args.quiet,
                        settings=settings, backend=args.backend, ray_address=args.ray_address)
    wanted = {(t.agent.label, t.env_id, t.episode) for t in tasks}
    records = [r for r in runner.load_records(out)
               if (r["agent"], r["env_id"], r["episode"]) in wanted]
    if not records:
        failed = f"; failed {counts['failed']} (see {out}/errors.log)" if counts["failed"] else ""
        print(f"no finished episodes{failed}", file=sys.stderr)
        return 1
    result = summary.summarise(records)
    summary.write(result, out)
    print(summary.markdown(result))
    corrupt = (f", moved aside and reran {counts['corrupt']} corrupt episode file(s)"
               if counts.get("corrupt") else "")
    print(f"ran {counts['ran']}, resumed past {counts['already_done']}{corrupt}, failed "
          f"{counts['failed']}{' (see errors.log)' if counts['failed'] else ''}; summary in "
          f"{out}/summary.md, "
          f"leaderboard in {out}/leaderboard.md, plots in {out}/plots/", file=sys.stderr)
    return 1 if counts["failed"] else 0


def _records(folder: Path) -> list[dict]:
    """The usable episode records of a results folder; each corrupt file is named in a
    warning and skipped (left where it is: summaries never change a results folder)."""
    from .eval import runner

    corrupt: list[Path] = []

    def warn(path: Path, problem: str) -> None:
        corrupt.append(path)
        print(f"warning: skipped corrupt episode file {path}: {problem}", file=sys.stderr)

    records = runner.load_records(folder, on_corrupt=warn)
    if not records:
        found = f" ({len(corrupt)} corrupt, named above)" if corrupt else ""
        raise DungeonBenchError(f"{folder}: no usable episode files{found} "
                                f"(expected {folder}/episodes/<agent>/<env>/episode-NNNN.json)")
    if corrupt:
        print(f"note: {folder}: {len(corrupt)} corrupt episode file(s) left out; "
              "`eval` with the same settings moves them aside and reruns them", file=sys.stderr)
    return records


def cmd_summarize(args) -> int:
    from .eval import summary

    out = Path(args.dir)
    result = summary.summarise(_records(out))
    summary.write(result, out)
    print(summary.leaderboard(result))
    return 0


def cmd_compare(args) -> int:
    from .eval import summary

    results = [(folder, summary.summarise(_records(Path(folder)))) for folder in args.dirs]
    print(summary.compare(results))
    return 0


# ----------------------------------------------------------------------------- check
def cmd_export(args) -> int:
    from .eval import balrog_export

    top = balrog_export.export(args.results, args.out, agent=args.agent or None,
                               name=args.name or None, oss=args.oss,
                               any_protocol=args.any_protocol)
    envs = ", ".join(f"{env} {s['progression_percentage']:.1f} +- {s['standard_error']:.1f}"
                     for env, s in top["environments"].items())
    print(f"BALROG submission in {args.out}/: average {top['average_progress']:.1f} +- "
          f"{top['standard_error']:.1f} ({envs})")
    extra = json.loads((Path(args.out) / "dungeonbench_extra.json").read_text())
    if extra["balrog_envs_missing"]:
        print(f"note: not played: {', '.join(extra['balrog_envs_missing'])} (the average is "
              "over the envs played)", file=sys.stderr)
    return 0


def cmd_check(args) -> int:
    from .core import conformance

    failed = 0
    for env_id in _select_ids(args.envs):
        entry = registry.REGISTRY[env_id]
        make = conformance.env_factory(entry.gym_id)
        skip = tuple(s for s in args.skip.split(",") if s)
        try:
            registry.validate_kwargs(entry)
            ran = conformance.check_all(make, expected_actions=entry.actions, skip=skip)
            print(f"PASS {env_id}: {', '.join(ran)}")
        except conformance.ConformanceError as exc:
            failed += 1
            print(f"FAIL {env_id}: {exc}")
        except Exception as exc:  # noqa: BLE001 - report every env, whatever breaks it
            failed += 1
            print(f"FAIL {env_id}: {type(exc).__name__}: {exc}")
    return 1 if failed else 0


# --------------------------------------------------------------------------- prepare
PREPARABLE = ("boxoban", "textworld")


def cmd_prepare(args) -> int:
    """Build, ahead of time, the data that envs would otherwise generate on first use."""
    what = PREPARABLE if args.what == "all" else (args.what,)
    if "boxoban" in what:
        from .games.minihack import boxoban
        from .games.minihack.env import BOXOBAN_POOL

        count = min(args.count or BOXOBAN_POOL, BOXOBAN_POOL)
        for tier in boxoban.TIERS:
            made = boxoban.prepare_levels(tier, range(count), progress=not args.quiet)
            print(f"boxoban {tier}: {count} levels ready ({made} new) in "
                  f"{boxoban.cache_dir('boxoban', tier)}")
    if "textworld" in what:
        from .games.textworld import games as tw_games

        count = min(args.count or tw_games.pool_size(), tw_games.pool_size())
        for task in tw_games.TASKS:
            made = tw_games.prepare(task, count, progress=not args.quiet)
            print(f"textworld {task}: {len(made)} games ready in {tw_games.folder(task)}")
    return 0


# ----------------------------------------------------------------------- achievements
def cmd_achievements_check(args) -> int:
    """Which achievements a walkthrough earns in a story, and which never match."""
    from .games.textadventure.check import check_walkthrough, read_walkthrough

    for path, what in ((args.story, "story file"), (args.file, "achievements file"),
                       (args.walkthrough, "walkthrough")):
        if not Path(path).is_file():
            print(f"error: {what} {path}: no such file", file=sys.stderr)
            return 2
    report = check_walkthrough(args.story, args.file, read_walkthrough(args.walkthrough))
    print(report.render())
    if args.transcript:
        for command, output in report.transcript:
            print(f"> {command}\n{output}\n")
    return 0 if report.complete else 1


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="dungeonbench-gym",
                                description="Many games behind one Gymnasium decision stream.")
    sub = p.add_subparsers(dest="command", required=True)

    s = sub.add_parser("list", help="registered ids with family, action count N and metric")
    s.add_argument("envs", nargs="?", default="all", help="all, a family, or ids (comma-separated)")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=cmd_list)

    s = sub.add_parser("play", help="play an env in the terminal (numbers or labels)")
    s.add_argument("env_id")
    s.add_argument("--seed", type=_SEED, default=0)
    s.set_defaults(func=cmd_play)

    s = sub.add_parser("eval", help="agents x envs x episodes, in parallel; resumable")
    s.add_argument("--agent", "--agents", dest="agents", default="random,baseline",
                   help="comma-separated: random, baseline, llm, sb3 (default: random,baseline)")
    s.add_argument("--suite", default="",
                   help="balrog, all, dnd-encounter, dnd-day, text-adventures, or a YAML file")
    s.add_argument("--envs", default="all",
                   help="without --suite: all, a family, or ids (comma-separated)")
    s.add_argument("--episodes", type=_whole_number(1, "give 1 or more episodes per env"), default=None,
                   help="episodes per env (default: the suite's counts, or 10)")
    s.add_argument("--seed", type=_SEED, default=None, help="episode k uses seed + k (default 0)")
    s.add_argument("--max-steps", type=_whole_number(1, "give a step limit of 1 or more"), default=None,
                   help="override every env's limit")
    s.add_argument("--workers", type=_whole_number(1, "give 1 or more worker processes"),
                   default=os.cpu_count() or 1)
    s.add_argument("--backend", default="process", choices=("process", "ray"))
    s.add_argument("--ray-address", default=None,
                   help="a Ray cluster (ray.init(address=...)); default: a local Ray instance")
    s.add_argument("--out", default="results")
    s.add_argument("--label", default="", help="the agent's name in results (one agent)")
    llm = s.add_argument_group("llm agent")
    llm.add_argument("--client", default=None, help="openai, anthropic, gemini, local, fake")
    llm.add_argument("--model", default=None)
    llm.add_argument("--protocol", default="options", choices=PROTOCOLS,
                     help="options (numbered legal options, re-asked when unusable; the "
                          "default) or balrog (BALROG's: the action vocabulary once, free-text "
                          "answers, its fallback without re-asking; docs/balrog.md)")
    llm.add_argument("--strategy", default=None,
                     help="options protocol: direct (default), cot, ...; balrog protocol: "
                          "naive (default), cot, robust_naive, robust_cot, few_shot")
    llm.add_argument("--history", type=_whole_number(0, "give 0 or more observations to keep"), default=None,
                     help="observations kept (default 16)")
    llm.add_argument("--base-url", default=None, help="OpenAI-compatible server (vLLM, Ollama...)")
    llm.add_argument("--temperature", type=float, default=None)
    llm.add_argument("--max-tokens", type=_whole_number(1, "give 1 or more tokens"), default=None)
    llm.add_argument("--vision", action="store_true", help="send the frame where a family has one")
    llm.add_argument("--tools", action="store_true",
                     help="offer the family's look-up tools as function calls (D&D: attack odds, "
                          "areas, routes, creatures, conditions, spells)")
    llm.add_argument("--max-tool-calls", type=_whole_number(0, "give 0 or more tool calls"), default=None,
                     help="tool calls allowed per decision (default 4)")
    llm.add_argument("--tool-protocol", default=None, choices=TOOL_PROTOCOLS,
                     help="how tools are offered: native function calls, a text protocol in the "
                          "prompt, or auto (native where the client has it, text otherwise; "
                          "the default)")
    llm.add_argument("--on-client-error", default=None, choices=ON_CLIENT_ERROR,
                     help="when the model cannot be reached after the client's retries: fail "
                          "the episode (the default; its steps so far are kept) or fall back "
                          "for that decision and record the error")
    llm.add_argument("--context-tokens", default=None,
                     type=_whole_number(MIN_CONTEXT_TOKENS, f"give the model's context window "
                                                           f"in tokens ({MIN_CONTEXT_TOKENS} or more)"),
                     help="the model's context window, where the server does not say it; "
                          "prompts are built to fit")
    llm.add_argument("--timeout", default=None,
                     type=_positive_seconds("give the seconds one request may take, above 0"),
                     help="seconds one request to the model may take (default 60)")
    s.add_argument("--model-path", default=None, help="sb3 agent: a saved model .zip")
    s.add_argument("--quiet", action="store_true", help="no progress bar")
    s.set_defaults(func=cmd_eval)

    s = sub.add_parser("summarize", help="summarise a results folder again (tables, plots)")
    s.add_argument("dir")
    s.set_defaults(func=cmd_summarize)

    s = sub.add_parser("compare", help="compare the results of several folders")
    s.add_argument("dirs", nargs="+")
    s.set_defaults(func=cmd_compare)

    s = sub.add_parser("export", help="write a results folder in another benchmark's layout")
    s.add_argument("format", choices=("balrog",),
                   help="balrog: BALROG's leaderboard submission layout (docs/balrog.md)")
    s.add_argument("results", help="the --out folder of a `eval --suite balrog` run")
    s.add_argument("out", help="a new folder for the submission")
    s.add_argument("--agent", default="", help="the agent label, when the run has several")
    s.add_argument("--name", default="", help="the leaderboard name (default: the model)")
    s.add_argument("--oss", action="store_true", help="the model and agent are open source")
    s.add_argument("--any-protocol", action="store_true",
                   help="export episodes played with the options protocol too (labelled)")
    s.set_defaults(func=cmd_export)

    s = sub.add_parser("check", help="run the conformance suite on registered ids")
    s.add_argument("envs", nargs="?", default="all")
    s.add_argument("--skip", default="", help="checks to skip, comma-separated")
    s.set_defaults(func=cmd_check)

    s = sub.add_parser("achievements", help="tools for text-adventure achievement files")
    ach_sub = s.add_subparsers(dest="achievements_command", required=True)
    c = ach_sub.add_parser("check", help="play a walkthrough; report what each achievement "
                                         "got and which patterns never matched")
    c.add_argument("story", help="the Z-machine story file (.z3/.z5/.z8)")
    c.add_argument("file", help="the achievements file (TURN_LIMIT, then NAME text lines)")
    c.add_argument("--walkthrough", required=True, help="commands, one per line")
    c.add_argument("--transcript", action="store_true", help="also print every response")
    c.set_defaults(func=cmd_achievements_check)

    s = sub.add_parser("prepare", help="generate and cache game data ahead of time")
    s.add_argument("what", nargs="?", default="all", choices=("all", *PREPARABLE))
    s.add_argument("--count", type=_whole_number(0, "give 0 (the whole pool) or more"), default=0,
                   help="how many Boxoban levels per tier / TextWorld games per task "
                        "(default: the whole pool)")
    s.add_argument("--quiet", action="store_true", help="no progress bar")
    s.set_defaults(func=cmd_prepare)
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except DungeonBenchError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("\ninterrupted; finished episodes are kept (run the same command to resume)",
              file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
