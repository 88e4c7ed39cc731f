"""The chat an LLM policy sends each step, kept compact.

    system      the family's rules in a few lines and its full command list
    user        Observation: <long_term text>            } the last `history`
    assistant   <label of the action executed>           } steps (BALROG: 16)
    ...
    user        [a note if the last answer was invalid]
                Observation: <long_term> + <short_term>
                Legal options now: "index: label" lines
                <the strategy's answer format>

History keeps only the long-term text and the executed action (not the model's
reasoning): the short-term status is current-only by the env's contract, and
replaying reasoning would grow every prompt for little gain.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, NamedTuple

from ..core.options import Option

FAMILY_RULES: dict[str, str] = {
    "babyai": (
        "You are an agent in a BabyAI grid world of rooms, walls, doors, keys, balls and boxes. "
        "Your mission is stated in the observation. You see the cells ahead of you; positions are "
        "relative to you (forward, left, right). 'go forward' moves one cell the way you face, "
        "turns happen in place, 'pick up' and 'toggle' act on the cell right in front of you, "
        "and you can carry one object. A locked door opens only while you carry the key of its "
        "colour."),
    "crafter": (
        "You are playing Crafter, a 2-D survival and crafting game with grass, sand, trees, "
        "water, stone, coal, iron, diamonds, lava, cows, zombies and skeletons. You act on the "
        "cell you face. Stay alive: keep food (eat cows, ripe plants), drink (water) and energy "
        "(sleep, best in a safe spot) up, avoid lava, fight or avoid zombies and skeletons. "
        "Score: unlock as many of the 22 achievements as you can, roughly in this order: collect "
        "wood, place table, make wood pickaxe and sword, collect stone, place stone, make stone "
        "pickaxe and sword, place furnace, collect coal and iron, make iron pickaxe and sword, "
        "collect diamond; also collect sapling and drink, place and eat a plant, eat cow, "
        "defeat zombie and skeleton, wake up."),
    "babaisai": (
        "You are playing Baba Is You. The rules are sentences of word blocks on the map, such as "
        "'baba is you' or 'key is win'. You move whatever IS YOU one cell per step. Touch an "
        "object that IS WIN to win. Pushing word blocks into or out of a line changes the rules: "
        "make a new rule (e.g. 'door is win') or break one (e.g. 'wall is stop') when the "
        "current rules do not let you win. Positions are given relative to you."),
    "nethack": (
        "You are playing NetHack, a roguelike; @ is you and north is up on the map. Progress is "
        "how deep you get (dungeon level) and your experience level: find the staircase down "
        "(>) and descend, fight monsters by moving into them, keep your hit points up (eat when "
        "Hungry, pray when HP is very low, at most every ~1000 turns). When the game asks a "
        "question or shows --More--, answer with the options offered; 'escape' cancels."),
    "minihack": (
        "You are playing a MiniHack task, a small NetHack level; @ is you and north is up on "
        "the map. Goal: {goal}. When the game asks a question or shows --More--, answer with "
        "the options offered; 'escape' cancels."),
    "generic": (
        "You are playing a game one decision at a time. Read the observation and choose the "
        "option that best advances your goal."),
    "textadventure": (
        "You are playing a classic interactive-fiction text adventure. Explore, examine things, "
        "pick up what may be useful and solve the story's problems; the game only understands "
        "short imperative commands such as 'north', 'take lamp', 'open door', "
        "'unlock door with key' or 'put coin in slot'. The options list commands that change "
        "something in the world right now (plus look, inventory and wait); you have a limited "
        "number of turns."),
}

MINIHACK_GOALS: dict[str, str] = {
    "Corridor": "reach the staircase down (>), through rooms joined by corridors",
    "CorridorBattle": "reach the staircase down (>) along a dark corridor full of monsters; "
                      "fight them one at a time inside the corridor",
    "MazeWalk": "find the staircase down (>) in a maze",
    "Quest": "reach the staircase down (>) beyond a lava river: cross it with the items you "
             "carry or find (e.g. levitation, or freezing the lava), and defeat the monsters",
    "Boxoban": "push every boulder (`) onto a fountain ({); you push a boulder by walking into "
               "it and cannot pull it, and a boulder stuck against a wall is lost",
}

# Fixed tables that ship without descriptions get these (labels are already plain words).
DEFAULT_DESCRIPTIONS: dict[str, dict[str, str]] = {
    "babyai": {"turn left": "turn 90 degrees left in place",
               "turn right": "turn 90 degrees right in place",
               "go forward": "move one cell the way you face",
               "pick up": "pick up the object in front of you",
               "drop": "put the carried object down in front of you",
               "toggle": "open or close the door (or open the box) in front of you"},
    "babaisai": {"idle": "do nothing this step",
                 "up": "move what IS YOU one cell up", "right": "move it one cell right",
                 "down": "move it one cell down", "left": "move it one cell left"},
}

_COLLAPSE_AT = 6   # runs of this many look-alike commands become one line


class Turn(NamedTuple):
    """One past step as the history shows it."""

    observation: str   # the long-term text the model saw
    action: str        # the label of the action executed


def family_of(env: Any) -> str:
    family = getattr(_unwrapped(env), "family", "generic")
    return family if family in FAMILY_RULES else "generic"


def rules_text(env: Any) -> str:
    family = family_of(env)
    rules = FAMILY_RULES[family]
    if family == "minihack":
        task = str(getattr(_unwrapped(env), "task", ""))
        goal = next((g for key, g in sorted(MINIHACK_GOALS.items(), key=lambda kv: -len(kv[0]))
                     if task.startswith(key)), "solve the level")
        rules = rules.format(goal=goal)
    return rules


def command_table(env: Any) -> list[Option]:
    """The commands the game can ever offer, with descriptions: the fixed option table,
    narrowed to the task's allowed commands where the env has such a set (MiniHack)."""
    unwrapped = _unwrapped(env)
    table = list(getattr(unwrapped, "option_table", ()) or ())
    allowed = getattr(unwrapped, "allowed_commands", None)
    if allowed is not None:
        allowed = set(allowed)
        table = [o for o in table if o.kind != "command" or o.index in allowed]
    defaults = DEFAULT_DESCRIPTIONS.get(family_of(env), {})
    return [o if o.description else o._replace(description=defaults.get(o.label, ""))
            for o in table]


def command_list(env: Any) -> str:
    """The command table as short lines; look-alike runs ("choose a" ... "choose *") folded."""
    table = command_table(env)
    lines: list[str] = []
    i = 0
    while i < len(table):
        key = _template(table[i])
        j = i
        while j + 1 < len(table) and key is not None and _template(table[j + 1]) == key:
            j += 1
        if key is not None and j - i + 1 >= _COLLAPSE_AT:
            label_tpl, desc_tpl = key
            values = " ".join(o.label.split()[-1] for o in table[i:j + 1])
            line = f"- {label_tpl.replace('{x}', 'X')}, X one of: {values}"
            if desc_tpl:
                line += f" -- {desc_tpl.replace('{x}', 'X')}"
            lines.append(line)
            i = j + 1
            continue
        option = table[i]
        lines.append(f"- {option.label}" + (f" -- {option.description}"
                                            if option.description else ""))
        i += 1
    return "\n".join(lines)


def system_message(env: Any) -> dict[str, str]:
    parts = [rules_text(env), ("Each turn you get the observation and the legal options, "
                               "numbered; answer with exactly one of them.")]
    commands = command_list(env)
    if commands:
        parts.append("Commands of this game (only those listed as legal on a turn can be "
                     "used then):\n" + commands)
    return {"role": "system", "content": "\n\n".join(parts)}


def format_options(options: Sequence[Option], with_descriptions: bool = False) -> str:
    """The numbered legal options, "index: label", as the model must answer them."""
    lines = []
    for o in options:
        line = f"{o.index}: {o.label}"
        if with_descriptions and o.description:
            line += f" ({o.description})"
        lines.append(line)
    return "\n".join(lines)


def options_block(env: Any, options: Sequence[Option], decision: str = "command") -> str:
    header = "Legal options now" + (f" (the game asks for: {decision})"
                                    if decision and decision != "command" else "") + ":"
    # games without a fixed command list explain each option where it is offered
    described = not getattr(_unwrapped(env), "option_table", ())
    return header + "\n" + format_options(options, with_descriptions=described)


def history_messages(history: Sequence[Turn]) -> list[dict[str, str]]:
    messages: list[dict[str, str]] = []
    for turn in history:
        messages.append({"role": "user", "content": "Observation:\n" + turn.observation})
        messages.append({"role": "assistant", "content": turn.action})
    return messages


def current_message(env: Any, info: dict, instructions: str,
                    note: str | None = None) -> dict[str, Any]:
    text = info["text"]
    observation = "\n\n".join(t for t in (text.get("long_term", ""), text.get("short_term", ""))
                              if t)
    parts = [note] if note else []
    parts += ["Observation:\n" + observation,
              options_block(env, info["options"], info.get("decision", "command")),
              instructions]
    return {"role": "user", "content": "\n\n".join(parts)}


def build_messages(env: Any, info: dict, history: Sequence[Turn], instructions: str, *,
                   note: str | None = None, system: dict | None = None) -> list[dict[str, Any]]:
    """The whole chat for one decision (`system` may be passed in, cached per episode)."""
    return [system or system_message(env), *history_messages(history),
            current_message(env, info, instructions, note)]


def retry_message(env: Any, reason: str, options: Sequence[Option], decision: str,
                  instructions: str) -> dict[str, str]:
    """The re-ask after an answer that could not be used: what was wrong, then the options."""
    return {"role": "user", "content": "\n\n".join([
        f"Your answer could not be used: {reason}.",
        options_block(env, options, decision), instructions])}


def fallback_note(answer: str, reason: str, executed: str) -> str:
    """BALROG's next-turn message after an invalid answer: what was wrong, what ran instead."""
    quoted = " ".join(answer.split())
    if len(quoted) > 80:
        quoted = quoted[:77] + "..."
    shown = f' ("{quoted}")' if quoted else ""
    return (f"Note: your previous answer{shown} could not be used: {reason}. "
            f'The default action "{executed}" was executed instead.')


def prompt_chars(messages: Sequence[dict]) -> int:
    return sum(len(m.get("content", "")) for m in messages)


def _template(option: Option) -> tuple[str, str] | None:
    """(label, description) with the label's last word as {x}: equal templates mean
    commands that differ only by that word (directions, letters)."""
    words = option.label.split()
    if not words:
        return None
    last = words[-1]
    label_tpl = " ".join([*words[:-1], "{x}"])
    desc_tpl = re.sub(rf"(?<!\w){re.escape(last)}(?!\w)", "{x}", option.description,
                      flags=re.IGNORECASE)
    return label_tpl, desc_tpl


def _unwrapped(env: Any) -> Any:
    return getattr(env, "unwrapped", env)
