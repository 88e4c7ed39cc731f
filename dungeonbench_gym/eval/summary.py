"""Summaries with BALROG's aggregation.

BALROG's "environment" is a family (BabyAI, Crafter, ...): its score is 100 x
mean progress over all its episodes, SE = std / sqrt(n) (here the sample std;
BALROG's own summaries use the population std, which `export balrog` writes). The
overall score is the mean of the family scores, SE = sqrt(sum SE^2) / n_families,
so a family with many ids weighs no more than one with a single id. Each id also
gets its own row, scored the same way.

DungeonBench's Encounter table (D&D episodes only, from each episode's metrics and
LLM usage): win rate, final party HP fraction, survivor fraction, decisions per
episode, tool calls and tokens per decision. Its Day table (Day-track episodes):
full-clear rate, encounters won, the same columns, and short rests used.

Language-model episodes also get a table of their cost per id: decisions, prompt
tokens per decision, the largest single request (prompt + completion tokens: what
must fit in the model's context), fallbacks, client errors and decisions whose
prompt was compacted to fit.
"""

from __future__ import annotations

import json
import math
from collections import defaultdict
from pathlib import Path

from ..core.secrets import scrub   # every file the harness writes goes through it


def _score(values: list[float]) -> tuple[float, float]:
    n = len(values)
    mean = sum(values) / n
    if n < 2:
        return 100 * mean, 0.0
    var = sum((v - mean) ** 2 for v in values) / (n - 1)
    return 100 * mean, 100 * math.sqrt(var / n)


def progress_stats(values: list[float]) -> dict:
    """Mean final progress, its standard error (sample SD / sqrt(n); 0 for one episode) and the
    episode count, on the 0-1 scale: how the training examples report an agent."""
    n = len(values)
    mean = sum(values) / n
    se = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1) / n) if n > 1 else 0.0
    return {"mean_progress": round(mean, 4), "stderr": round(se, 4), "episodes": n}


def combine_families(scores: list[tuple[float, float]]) -> tuple[float, float]:
    """BALROG's overall score from (score, SE) per family: their mean, sqrt(sum SE^2) / n."""
    n = len(scores)
    return sum(s for s, _ in scores) / n, math.sqrt(sum(se * se for _, se in scores)) / n


def summarise(records: list[dict]) -> dict:
    """Per agent: per-env rows, per-family and overall scores."""
    groups: dict[tuple[str, str], list[dict]] = defaultdict(list)
    for r in records:
        groups[(r["agent"], r["env_id"])].append(r)
    agents: dict[str, dict] = {}
    for (agent, env_id), eps in sorted(groups.items()):
        score, se = _score([e["progress"] for e in eps])
        row = {
            "env_id": env_id, "family": eps[0]["family"], "episodes": len(eps),
            "score": score, "se": se,
            "success_rate": sum(e["success"] for e in eps) / len(eps),
            "mean_steps": sum(e["steps"] for e in eps) / len(eps),
            "invalid_actions": sum(e["invalid_actions"] for e in eps),
        }
        llm = [e["llm"] for e in eps if e.get("llm")]
        if llm:   # language-model cost: tokens and fallbacks per decision
            row.update(_llm_cost(llm))
        agents.setdefault(agent, {"envs": []})["envs"].append(row)
    family_progress: dict[tuple[str, str], list[float]] = defaultdict(list)
    for (agent, _), eps in groups.items():
        family_progress[(agent, eps[0]["family"])].extend(e["progress"] for e in eps)
    for agent, data in agents.items():
        families = {f: _score(v) for (a, f), v in sorted(family_progress.items()) if a == agent}
        data["families"] = {f: {"score": s, "se": se} for f, (s, se) in families.items()}
        data["overall"] = dict(zip(("score", "se"), combine_families(list(families.values()))))
    out = {"agents": agents}
    encounter = dnd_encounter(records)
    if encounter:
        out["dnd_encounter"] = encounter
    days = dnd_day(records)
    if days:
        out["dnd_day"] = days
    return out


def _llm_cost(llm: list[dict]) -> dict:
    """Per decision over all the episodes' decisions (not a mean of episode ratios).
    Usage recorded before a field existed counts as none of it (max_request_tokens: None
    when no episode has it)."""
    decisions = sum(u["decisions"] for u in llm)
    per = decisions or 1
    sizes = [u["max_request_tokens"] for u in llm if u.get("max_request_tokens") is not None]
    return {
        "decisions": decisions,
        "tokens_per_decision": sum(u["prompt_tokens"] + u["completion_tokens"] for u in llm) / per,
        "prompt_tokens_per_decision": sum(u["prompt_tokens"] for u in llm) / per,
        "max_request_tokens": max(sizes) if sizes else None,
        "fallback_rate": sum(u["fallbacks"] for u in llm) / per,
        "client_errors": sum(u.get("client_errors", 0) for u in llm),
        "compacted_decisions": sum(u.get("compacted_decisions", 0) for u in llm),
    }


def _mean(values: list[float]) -> float:
    return sum(values) / len(values)


def dnd_encounter(records: list[dict]) -> dict:
    """Per agent over its D&D episodes: DungeonBench's Encounter metrics (win rate ±
    SE, means of the rest). Tools and tokens per decision are None for agents that use
    no language model."""
    groups: dict[str, list[dict]] = defaultdict(list)
    for r in records:
        if r.get("family") == "dnd" and "win" in (r.get("metrics") or {}):
            groups[r["agent"]].append(r)
    table = {}
    for agent, eps in sorted(groups.items()):
        m = [e["metrics"] for e in eps]
        win, win_se = _score([float(x["win"]) for x in m])
        row = {"episodes": len(eps), "scenarios": len({e["env_id"] for e in eps}),
               "win_rate": win / 100, "win_rate_se": win_se / 100,
               "party_hp_fraction": _mean([float(x["party_hp_fraction"]) for x in m]),
               "survivors": _mean([float(x["survivors"]) for x in m]),
               "rounds": _mean([float(x.get("rounds", 0)) for x in m]),
               "decisions_per_episode": _mean([float(x["decisions"]) for x in m]),
               "tools_per_decision": None, "tokens_per_decision": None}
        _llm_rates(eps, row)
        table[agent] = row
    return table


def _llm_rates(eps: list[dict], row: dict) -> None:
    llm = [e["llm"] for e in eps if e.get("llm")]
    if llm:
        decisions = sum(u["decisions"] for u in llm) or 1
        row["tools_per_decision"] = sum(u.get("tool_calls", 0) for u in llm) / decisions
        row["tokens_per_decision"] = sum(u["prompt_tokens"] + u["completion_tokens"] for u in llm) / decisions


def dnd_day(records: list[dict]) -> dict:
    """Per agent over its Day-track episodes: full-clear rate ± SE, encounters won, final
    party HP, survivors, decisions, short rests, tools and tokens per decision."""
    groups: dict[str, list[dict]] = defaultdict(list)
    for r in records:
        if r.get("family") == "dnd" and "full_clear" in (r.get("metrics") or {}):
            groups[r["agent"]].append(r)
    table = {}
    for agent, eps in sorted(groups.items()):
        m = [e["metrics"] for e in eps]
        clear, clear_se = _score([float(x["full_clear"]) for x in m])
        row = {"episodes": len(eps), "days": len({e["env_id"] for e in eps}),
               "clear_rate": clear / 100, "clear_rate_se": clear_se / 100,
               "encounters_won": _mean([x["encounters_won"] / x["encounters"] for x in m]),
               "party_hp_fraction": _mean([float(x["party_hp_fraction"]) for x in m]),
               "survivors": _mean([float(x["survivors"]) for x in m]),
               "decisions_per_episode": _mean([float(x["decisions"]) for x in m]),
               "short_rests": _mean([float(x["short_rests_used"]) for x in m]),
               "tools_per_decision": None, "tokens_per_decision": None}
        _llm_rates(eps, row)
        table[agent] = row
    return table


def _cell(value, fmt: str) -> str:
    return "-" if value is None else format(value, fmt)


def day_markdown(summary: dict) -> str:
    """The Day table, best clear rate first ("" without Day episodes)."""
    table = summary.get("dnd_day")
    if not table:
        return ""

    header = ("| agent | episodes | clear rate | encounters won | party HP | survivors | decisions/ep "
              "| short rests | tools/decision | tokens/decision |")
    lines = ["## D&D Day (DungeonBench)", "", header, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for agent, r in sorted(table.items(), key=lambda kv: (-kv[1]["clear_rate"], -kv[1]["encounters_won"])):
        lines.append(f"| {agent} | {r['episodes']} | {r['clear_rate']:.2f} ± {r['clear_rate_se']:.2f} | "
                     f"{r['encounters_won']:.2f} | {r['party_hp_fraction']:.2f} | {r['survivors']:.2f} | "
                     f"{r['decisions_per_episode']:.1f} | {r['short_rests']:.2f} | "
                     f"{_cell(r['tools_per_decision'], '.2f')} | {_cell(r['tokens_per_decision'], '.0f')} |")
    return "\n".join(lines) + "\n"


def dnd_tables(summary: dict) -> str:
    """The Encounter and Day tables that apply, each after a blank line."""
    parts = [t for t in (encounter_markdown(summary), day_markdown(summary)) if t]
    return "".join(f"\n{t}" for t in parts)


def encounter_markdown(summary: dict) -> str:
    """The Encounter table, best win rate first ("" without D&D episodes)."""
    table = summary.get("dnd_encounter")
    if not table:
        return ""

    header = ("| agent | episodes | win rate | party HP | survivors | decisions/ep | tools/decision "
              "| tokens/decision |")
    lines = ["## D&D Encounter (DungeonBench)", "", header, "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for agent, r in sorted(table.items(), key=lambda kv: (-kv[1]["win_rate"], -kv[1]["party_hp_fraction"])):
        lines.append(f"| {agent} | {r['episodes']} | {r['win_rate']:.2f} ± {r['win_rate_se']:.2f} | "
                     f"{r['party_hp_fraction']:.2f} | {r['survivors']:.2f} | "
                     f"{r['decisions_per_episode']:.1f} | {_cell(r['tools_per_decision'], '.2f')} | "
                     f"{_cell(r['tokens_per_decision'], '.0f')} |")
    return "\n".join(lines) + "\n"


def llm_markdown(summary: dict) -> str:
    """The language-model cost table, one row per agent and id ("" without LLM episodes)."""
    rows = [(agent, row) for agent, data in summary["agents"].items() for row in data["envs"]
            if "prompt_tokens_per_decision" in row]
    if not rows:
        return ""
    lines = ["## Language-model use", "",
             "| agent | env | decisions | prompt tokens/decision | max request tokens "
             "| fallback rate | client errors | compacted decisions |",
             "|---|---|---:|---:|---:|---:|---:|---:|"]
    for agent, r in rows:
        lines.append(f"| {agent} | {r['env_id']} | {r['decisions']} | "
                     f"{r['prompt_tokens_per_decision']:.0f} | {_cell(r['max_request_tokens'], 'd')} | "
                     f"{r['fallback_rate']:.2f} | {r['client_errors']} | {r['compacted_decisions']} |")
    return "\n".join(lines) + "\n"


def markdown(summary: dict) -> str:
    lines = ["| agent | env | episodes | score (100 x progress) | success | mean steps | invalid |",
             "|---|---|---:|---:|---:|---:|---:|"]
    for agent, data in summary["agents"].items():
        for row in data["envs"]:
            lines.append(f"| {agent} | {row['env_id']} | {row['episodes']} | "
                         f"{row['score']:.1f} ± {row['se']:.1f} | {row['success_rate']:.2f} | "
                         f"{row['mean_steps']:.1f} | {row['invalid_actions']} |")
        for fam, s in data["families"].items():
            lines.append(f"| {agent} | **{fam} (family)** | | {s['score']:.1f} ± {s['se']:.1f} | | | |")
        o = data["overall"]
        lines.append(f"| {agent} | **overall** | | {o['score']:.1f} ± {o['se']:.1f} | | | |")
    llm = llm_markdown(summary)
    return "\n".join(lines) + "\n" + dnd_tables(summary) + (f"\n{llm}" if llm else "")


def leaderboard(summary: dict) -> str:
    """One row per agent, best first: overall, then each family (100 x progress ± SE).
    "families" says over how many families an agent's overall is taken: overalls
    over different families are not comparable."""
    agents = summary["agents"]
    families = sorted({f for data in agents.values() for f in data["families"]})
    lines = ["| rank | agent | families | overall | " + " | ".join(families) + " |",
             "|---:|---|---:|---:|" + "---:|" * len(families)]
    ranked = sorted(agents.items(), key=lambda kv: -kv[1]["overall"]["score"])
    for rank, (agent, data) in enumerate(ranked, 1):
        cells = [f"{data['families'][f]['score']:.1f} ± {data['families'][f]['se']:.1f}"
                 if f in data["families"] else "-" for f in families]
        o = data["overall"]
        lines.append(f"| {rank} | {agent} | {len(data['families'])}/{len(families)} | "
                     f"**{o['score']:.1f} ± {o['se']:.1f}** | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n" + dnd_tables(summary)


def compare(results: list[tuple[str, dict]]) -> str:
    """Agents of several runs side by side, per family and overall."""
    rows = []
    for folder, summary in results:
        for agent, data in summary["agents"].items():
            rows.append((f"{agent} ({folder})", data))
    families = sorted({f for _, data in rows for f in data["families"]})
    lines = ["| agent (run) | overall | " + " | ".join(families) + " |",
             "|---|---:|" + "---:|" * len(families)]
    for name, data in rows:
        cells = [f"{data['families'][f]['score']:.1f} ± {data['families'][f]['se']:.1f}"
                 if f in data["families"] else "-" for f in families]
        o = data["overall"]
        lines.append(f"| {name} | {o['score']:.1f} ± {o['se']:.1f} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def plot(summary: dict, path: Path) -> Path | None:
    """Bars of family scores with standard-error bars, one colour per agent (PNG).
    None when matplotlib is not installed."""
    try:
        import matplotlib
    except ImportError:
        return None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    agents = summary["agents"]
    families = sorted({f for data in agents.values() for f in data["families"]}) + ["overall"]
    width = 0.8 / max(1, len(agents))
    fig, ax = plt.subplots(figsize=(1.2 + 1.1 * len(families), 3.6), dpi=110)
    for k, (agent, data) in enumerate(sorted(agents.items())):
        scores = [data["families"].get(f, {}).get("score", 0.0) if f != "overall"
                  else data["overall"]["score"] for f in families]
        errors = [data["families"].get(f, {}).get("se", 0.0) if f != "overall"
                  else data["overall"]["se"] for f in families]
        xs = [i + (k - (len(agents) - 1) / 2) * width for i in range(len(families))]
        ax.bar(xs, scores, width, yerr=errors, capsize=3, label=agent)
    ax.set_xticks(range(len(families)), families, rotation=20, ha="right")
    ax.set_ylabel("score (100 x mean progress)")
    ax.set_ylim(0, 105)
    ax.legend(fontsize=8)
    ax.set_title("DungeonBench-Gym: score per family (± standard error)")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path)
    plt.close(fig)
    return path


def write(summary: dict, out: Path) -> None:
    """summary.json, summary.md (every row), leaderboard.md and plots/families.png."""
    out = Path(out)
    (out / "summary.json").write_text(json.dumps(scrub(summary), indent=1, sort_keys=True))
    (out / "summary.md").write_text(scrub(markdown(summary)))
    (out / "leaderboard.md").write_text(scrub(leaderboard(summary)))
    plot(summary, out / "plots" / "families.png")
