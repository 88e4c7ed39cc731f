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

When the chat must fit a context window (`PromptParts.messages` with `compact`),
the agent first drops history, oldest first, then applies `COMPACTIONS` in
order: each keeps what the model needs to answer (the options and their numbers)
and gives up what repeats or can be looked up elsewhere.
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
    "dnd": (
        "You command the party in a D&D 5e tactical battle on a grid of 5-foot squares; x runs "
        "east and y south. Each creature's turn has a move, an action and maybe a bonus action; "
        "decisions come in steps: an action, then its target, point or direction, then where "
        "to move. Win the objective before the round limit and keep the party alive: focus "
        "damage, stay out of reach of many foes, heal or protect the fallen."),
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


def history_messages(history: Sequence[Turn]) -> list[dict[str, str]]:
    messages: list[dict[str, str]] = []
    for turn in history:
        messages.append({"role": "user", "content": "Observation:\n" + turn.observation})
        messages.append({"role": "assistant", "content": turn.action})
    return messages


def current_message(env: Any, info: dict, instructions: str,
                    note: str | None = None) -> dict[str, Any]:
    return PromptParts(env, info, (), instructions, note).current()


def build_messages(env: Any, info: dict, history: Sequence[Turn], instructions: str, *,
                   note: str | None = None, system: dict | None = None) -> list[dict[str, Any]]:
    """The whole chat for one decision (`system` may be passed in, cached per episode)."""
    return PromptParts(env, info, history, instructions, note, system).messages()


def retry_message(reason: str) -> dict[str, str]:
    """The re-ask after an answer that could not be used: only what was wrong and how to
    answer; the options are in the prompt above it, so it is not sent again."""
    return {"role": "user", "content": (
        f"Your answer could not be used: {reason}. Answer again with one legal option "
        "listed above: its number or its label exactly as listed, and nothing else.")}


def answer_echo(answer: str, max_chars: int = 300) -> dict[str, str]:
    """The model's unusable answer as the re-ask quotes it back: its end, where answers
    conclude, so a rambling answer does not cost its whole length again."""
    text = answer.strip()
    if len(text) > max_chars:
        text = "..." + text[-(max_chars - 3):]
    return {"role": "assistant", "content": text}


def fallback_note(answer: str, reason: str, executed: str) -> str:
    """BALROG's next-turn message after an invalid answer: what was wrong, what ran instead."""
    quoted = " ".join(answer.split())
    if len(quoted) > 80:
        quoted = quoted[:77] + "..."
    shown = f' ("{quoted}")' if quoted else ""
    return (f"Note: your previous answer{shown} could not be used: {reason}. "
            f'The default action "{executed}" was executed instead.')


def prompt_chars(messages: Sequence[dict]) -> int:
    return sum(len(m.get("content") or "") for m in messages)


# ------------------------------------------------------------------ fitting a context
# In the order they are tried once no history is left; each applies on top of the ones
# before it. "observation cut" is applied last and by degree (see PromptParts.messages).
COMPACTIONS = ("repeated options", "option descriptions", "grouped options", "short labels",
               "map", "commands", "observation cut")
_SHORT_LABEL = 40
_GROUP_MIN = 3
_MAP_NOTE = "Map: left out to fit the context (the positions are listed below)."
ABBREVIATED_HINT = "Some options are abbreviated to fit: answer with the option's number."


class PromptParts:
    """The pieces of one decision's chat, and the same chat made smaller.

    `messages(history, compact, observation_chars)` is the chat with the last `history`
    turns, the named `COMPACTIONS` applied, and the observation cut to
    `observation_chars` characters (head and tail kept) when "observation cut" is
    among them. `extra` lines (hints the agent adds: typing, tools) end the question.
    """

    def __init__(self, env: Any, info: dict, history: Sequence[Turn], instructions: str,
                 note: str | None = None, system: dict | None = None,
                 extra: Sequence[str] = ()):
        self.env = env
        self.info = info
        self.history = list(history)
        self.instructions = instructions
        self.note = note
        self.system = system or system_message(env)
        self.extra = [e for e in extra if e]
        text = info["text"]
        self.long_term = text.get("long_term", "")
        self.short_term = text.get("short_term", "")
        self.options = list(info["options"])
        self.decision = info.get("decision", "command")
        self.described = not getattr(_unwrapped(env), "option_table", ())

    def applicable(self) -> list[str]:
        """The compactions that would change this chat."""
        found = []
        for name in COMPACTIONS:
            if name == "repeated options" and self._without_option_lines(self.short_term) != self.short_term:
                found.append(name)
            elif name == "option descriptions" and self.described and any(o.description for o in self.options):
                found.append(name)
            elif name == "grouped options" and _grouped(self.options) is not None:
                found.append(name)
            elif name == "short labels" and any(len(o.label) > _SHORT_LABEL for o in self.options):
                found.append(name)
            elif name == "map" and getattr(_unwrapped(self.env), "family", "") == "dnd" \
                    and _without_map(self.long_term) != self.long_term:
                found.append(name)
            elif name == "commands" and self.system["content"].count("\n\n") >= 2:
                found.append(name)
            elif name == "observation cut":
                found.append(name)
        return found

    def messages(self, history: int | None = None, compact: Sequence[str] = (),
                 observation_chars: int | None = None) -> list[dict[str, Any]]:
        kept = self.history if history is None else self.history[len(self.history) - history:] \
            if history else []
        system = self.system
        if "commands" in compact:   # the rules and the answer format, not the command list
            system = {**system, "content": "\n\n".join(system["content"].split("\n\n")[:2])}
        return [system, *history_messages(kept),
                self.current(compact, observation_chars)]

    def current(self, compact: Sequence[str] = (), observation_chars: int | None = None) -> dict[str, Any]:
        long_term, short_term = self.long_term, self.short_term
        if "repeated options" in compact:
            short_term = self._without_option_lines(short_term)
        if "map" in compact:
            long_term = _without_map(long_term)
        observation = "\n\n".join(t for t in (long_term, short_term) if t)
        if "observation cut" in compact and observation_chars is not None:
            observation = cut_middle(observation, observation_chars)
        header = "Legal options now" + (f" (the game asks for: {self.decision})"
                                        if self.decision and self.decision != "command" else "") + ":"
        listing = self._options_listing(compact)
        parts = [self.note] if self.note else []
        parts += ["Observation:\n" + observation, header + "\n" + listing, self.instructions]
        if "grouped options" in compact or "short labels" in compact:
            parts.append(ABBREVIATED_HINT)
        parts += self.extra
        return {"role": "user", "content": "\n\n".join(parts)}

    def observation_chars(self) -> int:
        return len(self.long_term) + len(self.short_term) + 2

    def _options_listing(self, compact: Sequence[str]) -> str:
        described = self.described and "option descriptions" not in compact
        short = "short labels" in compact

        def label(o: Option) -> str:
            text = o.label
            if short and len(text) > _SHORT_LABEL:
                text = text[:_SHORT_LABEL - 3].rstrip() + "..."
            if described and o.description:
                text += f" ({o.description})"
            return text

        if "grouped options" in compact:
            groups = _grouped(self.options)
            if groups is not None:
                lines = []
                for prefix, run in groups:
                    if prefix is None:
                        lines.append(f"{run[0].index}: {label(run[0])}")
                    else:
                        rest = [o._replace(label=o.label[len(prefix):].lstrip()) for o in run]
                        lines.append(f"{prefix} ...: " + " | ".join(f"{o.index}: {label(o)}" for o in rest))
                return "\n".join(lines)
        return "\n".join(f"{o.index}: {label(o)}" for o in self.options)

    def _without_option_lines(self, text: str) -> str:
        """The text without the lines that list the options again ("3. Attack goblin_1")."""
        if not text:
            return text
        listed = {f"{o.index}{sep} {o.label}".strip() for o in self.options for sep in ".:)"}
        return "\n".join(line for line in text.split("\n") if line.strip() not in listed).rstrip()


def cut_middle(text: str, max_chars: int) -> str:
    """`text` in at most `max_chars` characters: its head (a third) and tail (the rest), where
    observations put the state and the latest events."""
    if len(text) <= max_chars:
        return text
    marker = "\n[...]\n"
    room = max(0, max_chars - len(marker))
    head = room // 3
    tail = room - head
    return text[:head] + marker + (text[-tail:] if tail else "")


def _without_map(text: str) -> str:
    """A D&D observation without its map grid: the "Map (...)" line, the rows and the legend
    (every creature's position is listed after it)."""
    lines = text.split("\n")
    start = next((i for i, line in enumerate(lines) if line.startswith("Map (")), None)
    if start is None:
        return text
    end = start + 1
    while end < len(lines) and lines[end] and " " not in lines[end].strip():   # grid rows
        end += 1
    if end < len(lines) and "=" in lines[end]:                                  # the legend
        end += 1
    return "\n".join([*lines[:start], _MAP_NOTE, *lines[end:]])


def _grouped(options: Sequence[Option]) -> list[tuple[str | None, list[Option]]] | None:
    """Runs of at least `_GROUP_MIN` consecutive options whose labels start with the same
    words, as (shared prefix, run); single options as (None, [option]). None when no run
    would save anything."""
    groups: list[tuple[str | None, list[Option]]] = []
    i, saved = 0, False
    while i < len(options):
        first = options[i].label.split()
        best_j, best_prefix = i, None
        for n in range(len(first) - 1, 0, -1):
            prefix = " ".join(first[:n])
            j = i
            while j + 1 < len(options) and options[j + 1].label.startswith(prefix + " "):
                j += 1
            if j - i + 1 >= _GROUP_MIN and len(prefix) >= 4:
                best_j, best_prefix = j, prefix
                break
        if best_prefix is None:
            groups.append((None, [options[i]]))
            i += 1
        else:
            groups.append((best_prefix, list(options[i:best_j + 1])))
            saved = True
            i = best_j + 1
    return groups if saved else None


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
