"""The BALROG protocol: a fixed action vocabulary, free-text answers, no re-asking.

The project's own protocol (`LLMAgent`, "options") shows the legal options of
each decision, numbered, and re-asks when an answer names none of them. BALROG
plays differently, and a score is BALROG's only when it is played BALROG's way
(balrog-ai/BALROG: `evaluator.py`, `agents/*.py`, `prompt_builder/history.py`):

- the first message describes the game and lists its whole action vocabulary
  once ("name: what it does"); no per-step option list is shown;
- the model answers in free text; the answer is read as the strategy says
  (below) and must then be exactly one name of the vocabulary;
- an answer outside the vocabulary runs the family's default action (BALROG's
  per-family fallback), and the next observation opens with a line saying so;
  the model is never asked again within a step;
- a valid but useless action (walking into a wall) is executed as upstream
  executes it: the harness makes the env with `ENV_SETTINGS` (on_invalid
  "passthrough"), so the mask does not turn it into another action;
- the history keeps the last 16 observations and the model's own answers (not
  the action that ran after a fallback); with a reasoning strategy the most
  recent answer is replayed whole, as BALROG's `remember_cot` does;
- families that take typed commands (TextWorld) accept any answer as the
  command to type, as BALROG does.

Strategies (`STRATEGIES`), read as BALROG reads them: "naive" (the answer is
the action; characters other than letters, spaces and ':' dropped), "cot"
(reasoning, then a final "ACTION: <name>"), "robust_naive" and "robust_cot"
(the action between <|ACTION|> and <|END|>), "few_shot" (naive, after
demonstration episodes recorded by our baselines: `demonstrations.py`).

The wording of every message is our own; the information is what BALROG's
prompts carry (docs/balrog.md lists it per family).
"""

from __future__ import annotations

import re
from collections import deque
from typing import Any, NamedTuple

from ..agents.base import Agent
from ..core.errors import DungeonBenchError
from ..core.options import Option
from .base import ChatClient, ClientError
from .context import ContextBudget
from .prompting import command_table

PROTOCOLS = ("options", "balrog")
STRATEGIES = ("naive", "cot", "robust_naive", "robust_cot", "few_shot")
REASONING_STRATEGIES = ("cot", "robust_cot")
# BALROG's config.yaml, client.generate_kwargs: the sampling temperature of its runs
TEMPERATURE = 1.0
HISTORY = 16          # agent.max_text_history
COT_HISTORY = 1       # agent.max_cot_history: the answers replayed whole
# What each family's env is made with under this protocol: every action of the vocabulary
# runs as upstream runs it, and the text is BALROG's where ours differs (TextWorld, and
# NLE's language observation with the whole terminal for MiniHack and NetHack).
ENV_SETTINGS: dict[str, dict[str, Any]] = {
    "babyai": {"on_invalid": "passthrough"},
    "babaisai": {"on_invalid": "passthrough"},
    "crafter": {"on_invalid": "passthrough"},
    "minihack": {"on_invalid": "passthrough", "auto_more": True, "nle_prompts": True,
                 "text_style": "balrog"},
    "nethack": {"on_invalid": "passthrough", "auto_more": True, "nle_prompts": True,
                "text_style": "balrog"},
    "textworld": {"text_style": "balrog"},
}

# BALROG's MiniHack vocabulary (environments/minihack/__init__.py, ACTIONS): the task's
# actions that this table names, in our labels ("pick up" is its "pickup", "put on" its
# "puton"); its "more" is left out: --More-- is pressed for the agent (auto_more)
MINIHACK_VOCABULARY = frozenset((
    "north", "east", "south", "west", "northeast", "southeast", "southwest", "northwest",
    "far north", "far east", "far south", "far west", "far northeast", "far southeast",
    "far southwest", "far northwest", "up", "down", "wait", "apply", "close", "open", "eat",
    "force", "kick", "loot", "pick up", "pray", "put on", "quaff", "search", "zap"))
VOCABULARY_HEADER = "Actions you can take (answer with one name exactly as written):"
# BALROG's default for a typed-command family (TextWorld's wrapper: "help")
FALLBACK_COMMANDS = {"textworld": "help"}
_NOT_LETTERS = re.compile(r"[^a-zA-Z\s:]")
_TAGGED = re.compile(r"<\|ACTION\|>(.*?)<\|END\|>", re.DOTALL)
_NO_ACTION = "(no action found in the answer)"


def read_answer(strategy: str, text: str) -> str:
    """The action an answer names, read as BALROG's agent of that strategy reads it."""
    if strategy in ("naive", "few_shot"):
        return _NOT_LETTERS.sub("", text).strip()
    if strategy == "cot":
        return _NOT_LETTERS.sub("", text).split("ACTION:")[-1].strip()
    tagged = _TAGGED.search(text)
    if tagged:
        return tagged.group(1).strip()
    return text.strip() if strategy == "robust_naive" else _NO_ACTION


def answer_instructions(strategy: str) -> str:
    """How the model is asked to answer, per strategy (appended to the current turn)."""
    if strategy in ("naive", "few_shot"):
        return ("Reply with one action name from the list, exactly as written, and nothing "
                "else. Keep choosing an action every turn until the episode ends.")
    if strategy == "cot":
        return ("Reason step by step about what to do next. Then end your reply with the line "
                "ACTION: <one action name from the list>")
    if strategy == "robust_naive":
        return ("Reply with exactly one action name from the list, written as "
                "<|ACTION|>name<|END|>, and nothing else.")
    return ("Think about what to do next. Then give exactly one action name from the list, "
            "written as <|ACTION|>name<|END|>.")


class Vocabulary(NamedTuple):
    """What the model may answer: the fixed commands, or any text (`typed`)."""

    actions: tuple[Option, ...]
    typed: bool

    def find(self, answer: str) -> Option | None:
        # BALROG's validity test: the answer is a name of the vocabulary, character for character
        return next((o for o in self.actions if o.label == answer), None)


def vocabulary(env: Any) -> Vocabulary:
    """The action vocabulary BALROG shows for this env: the family's fixed command table,
    narrowed to the task's commands (MiniHack); any typed command where the env takes text."""
    unwrapped = getattr(env, "unwrapped", env)
    typed = bool(getattr(unwrapped, "accepts_text", False))
    table = tuple(o for o in command_table(env) if o.kind == "command")
    if getattr(unwrapped, "family", "") == "minihack":
        table = tuple(o for o in table if o.label in MINIHACK_VOCABULARY)
    if not table and not typed:
        raise DungeonBenchError(
            f"the BALROG protocol needs a fixed action vocabulary or typed commands; "
            f"{type(unwrapped).__name__} has neither (its options change every decision): "
            "play it with --protocol options")
    return Vocabulary(table, typed)


# ------------------------------------------------------------------ the first message
_GAMES: dict[str, str] = {
    "babyai": ("You are playing a simple navigation game on a grid. Your mission: {mission}. "
               "Objects are described by where they are from you."),
    "babaisai": ("You are playing Baba Is You, a puzzle game whose rules are sentences of word "
                 "blocks on the map, written SUBJECT IS PROPERTY (for example BABA IS YOU). "
                 "You can push word blocks to break rules or form new ones, unless something "
                 "makes them STOP. Usually you win by reaching an object that IS WIN, but what "
                 "is WIN, and what is YOU, can be changed."),
    "crafter": ("You are playing Crafter, a survival game of gathering and crafting. These are "
                "its 22 achievements: collect wood, place table, eat cow, collect sapling, "
                "collect drink, make wood pickaxe, make wood sword, place plant, defeat zombie, "
                "collect stone, place stone, eat plant, defeat skeleton, make stone pickaxe, "
                "make stone sword, wake up, place furnace, collect coal, collect iron, make "
                "iron pickaxe, make iron sword, collect diamond. Get as far as you can by "
                "completing them all."),
    "minihack": "You are playing MiniHack, small levels of NetHack. {goal}",
    "nethack": ("You are playing NetHack, a roguelike dungeon game. Get as far as you can: "
                "descend the dungeon and gain experience levels."),
    "textworld": ("You are playing TextWorld, a text adventure. {goal} Commands are typed as "
                  "text, e.g. look, goal, inventory, go <north|east|south|west>, examine ..., "
                  "open ..., take ..., take ... from ..., drop ..., put ... on ..., insert ... "
                  "into ..., unlock ... with ...{extra}. You have {steps} steps and cannot "
                  "restart."),
    "textadventure": ("You are playing a classic text adventure. Type commands as short "
                      "imperative sentences (e.g. north, take lamp, open door)."),
}
_MINIHACK_GOALS = (("boxoban", "This level is Boxoban, a box-pushing puzzle: push every boulder "
                               "onto a fountain by walking into it; a boulder moves only when "
                               "nothing is behind it."),
                   ("quest", "Explore the level, fight monsters and find your way through rooms "
                             "and mazes to the stairs down."),
                   ("corridor", "Explore the level and reach the stairs down."))
_TEXTWORLD_GOALS = {
    "treasure_hunter": ("Find a specific object somewhere in a maze of rooms; it may be in a "
                        "closed or locked container, and a key works only on the lock of the "
                        "same adjective. Take keys when you can; an unlocked door or "
                        "container still has to be opened."),
    "cooking": ("Find the recipe (examine the cookbook), gather and prepare the ingredients as "
                "it says (slice, chop or dice with a knife you hold; grill on the BBQ, fry on "
                "the stove, roast in the oven, and cooking the wrong way loses the game), then "
                "prepare the meal in the kitchen and eat it. Use the exact names you see."),
    "coin_collector": "Find the coin somewhere in a maze of rooms and take it.",
}


def first_message(env: Any, info: dict[str, Any], vocab: Vocabulary) -> str:
    """The game, the goal and the vocabulary: shown once, at the start of the chat."""
    unwrapped = getattr(env, "unwrapped", env)
    family = getattr(unwrapped, "family", "generic")
    task = str(getattr(unwrapped, "task", "") or "")
    game = _GAMES.get(family, "You are playing a game one action at a time.")
    if family == "babyai":
        game = game.format(mission=getattr(getattr(unwrapped, "level", None), "mission", "")
                           or info.get("metrics", {}).get("mission", "see the observation"))
    elif family == "minihack":
        goal = next((g for key, g in _MINIHACK_GOALS if key in task.lower()),
                    "Get as far as you can in the game.")
        game = game.format(goal=goal)
    elif family == "textworld":
        cooking = task == "cooking"
        game = game.format(goal=_TEXTWORLD_GOALS.get(task, ""),
                           extra=(", eat ..., cook ... with ..., slice/chop/dice ... with ..., "
                                  "prepare meal" if cooking else ""),
                           steps=getattr(unwrapped, "max_steps", None) or 80)
    parts = [game]
    if vocab.actions and not vocab.typed:
        lines = "\n".join(f"{o.label}: {o.description}" if o.description else o.label
                          for o in vocab.actions)
        parts.append(VOCABULARY_HEADER + "\n" + lines)
    parts.append("Each turn you get the recent history of observations and your answers, then "
                 "the current observation. Repeating an action that changes nothing is "
                 "pointless.")
    return "\n\n".join(parts)


def fallback_line(executed: str) -> str:
    return (f"Your last answer named no action of the list, so the default action "
            f"'{executed}' was taken.")


class _Turn(NamedTuple):
    observation: str
    answer: str          # the action the model named (read from its answer)
    reply: str           # the whole reply, replayed for the latest reasoning turns


class BalrogProtocolAgent(Agent):
    """A language model playing by BALROG's protocol (see the module docstring).

    Args:
        client: the model to ask.
        strategy: one of `STRATEGIES`.
        history: observations shown, the current one included (BALROG's
            max_text_history: 16).
        on_client_error: "fail" (the episode fails with the error) or "fallback" (the
            default action runs and the record says why).
        context_tokens: the model's window where the client cannot say; the oldest
            history is dropped first to fit.
        demonstrations: for "few_shot", a callable env -> list of demonstration episodes
            (each a list of (observation, action) pairs); default: the recorded ones.
    """

    name = "llm"

    def __init__(self, client: ChatClient, strategy: str = "naive", *, history: int = HISTORY,
                 on_client_error: str = "fail", context_tokens: int | None = None,
                 demonstrations=None):
        if strategy not in STRATEGIES:
            raise DungeonBenchError(f"unknown BALROG strategy {strategy!r}: use one of "
                                    f"{', '.join(STRATEGIES)}")
        if history < 0:
            raise ValueError(f"history={history}: must be 0 or more observations")
        self.client = client
        self.strategy = strategy
        self.history = history
        self.on_client_error = "fail" if on_client_error == "raise" else on_client_error
        self.budget = ContextBudget(client, context_tokens)
        self._demonstrations = demonstrations
        self.reset()

    def describe(self) -> dict[str, Any]:
        return {"name": self.name, "protocol": "balrog", "strategy": self.strategy,
                "history": self.history, "on_client_error": self.on_client_error,
                "context": self.budget.describe(), "client": self.client.describe()}

    def reset(self, env=None, seed: int | None = None) -> None:
        super().reset(env, seed)
        # BALROG's max_text_history counts the current observation too
        self.turns: deque[_Turn] = deque(maxlen=max(self.history - 1, 0))
        self.trajectory: list[dict[str, Any]] = []
        self.last_record: dict[str, Any] | None = None
        self._note: str | None = None
        self._intro: str | None = None
        self._demos: list[dict[str, str]] = []
        self.vocab = vocabulary(env) if env is not None else None
        if env is not None and self.strategy == "few_shot":
            from .demonstrations import demonstration_messages, load_demonstrations
            episodes = (self._demonstrations(env) if self._demonstrations is not None
                        else load_demonstrations(env))
            self._demos = demonstration_messages(episodes)

    # ---------------------------------------------------------------- one step
    def act(self, observation: dict[str, Any], info: dict[str, Any]) -> int | str:
        if "text" not in info:
            raise DungeonBenchError("the BALROG protocol reads info['text']: make the env with "
                                    "text=True")
        if self._intro is None:
            self._intro = first_message(self.env, info, self.vocab)
        text = info["text"]
        seen = text.get("long_term", "")
        if self._note:                       # BALROG puts the feedback before the observation
            seen = f"{self._note}\n\n{seen}"
        record: dict[str, Any] = {
            "step": len(self.trajectory), "protocol": "balrog", "strategy": self.strategy,
            "observation": seen, "note": self._note, "completions": [], "answer": None, "action": None,
            "fell_back": False, "retries": 0, "prompt_tokens": 0, "completion_tokens": 0,
            "max_request_tokens": 0, "prompt_chars": 0, "history_steps": 0,
            "latency_s": 0.0, "client_error": None, "client_errors": 0, "parse_errors": [],
            "compaction": []}
        options = list(info["options"])
        if info.get("decision") == "over" and len(options) == 1:
            action, label, answer, reply = options[0].index, options[0].label, "", ""
        else:
            reply = self._ask(seen, text.get("short_term", ""), record)
            answer = read_answer(self.strategy, reply) if reply is not None else ""
            record["answer"] = answer
            chosen = self.vocab.find(answer)
            if reply is not None and self.vocab.typed and chosen is None:
                action = label = answer          # any typed command is accepted (TextWorld)
            elif chosen is not None:
                action, label = chosen.index, chosen.label
            else:
                action = self._fallback()
                label = self._label(action)
                record["fell_back"] = True
                if reply is not None:
                    record["parse_errors"].append(f"{answer!r} is not an action of the list")
        self._note = fallback_line(label) if record["fell_back"] else None
        record["action"] = ({"typed": True, "label": label} if isinstance(action, str)
                            else {"index": int(action), "label": label})
        self.turns.append(_Turn(seen, answer if reply is not None else label, reply or ""))
        self.trajectory.append(record)
        self.last_record = record
        return action

    # ---------------------------------------------------------------- the chat
    def messages(self, seen: str, status: str, kept: int | None = None) -> list[dict[str, str]]:
        """The chat of one step with the last `kept` past turns (default: all kept)."""
        past = list(self.turns)
        if kept is not None:
            past = past[len(past) - kept:] if kept else []
        if self._demos:
            intro = self._intro + "\n\nFirst, study the demonstration episodes that follow."
            chat = [{"role": "user", "content": intro}, *self._demos,
                    {"role": "user", "content": "Now it is your turn to play."}]
        else:
            chat = [{"role": "user", "content": self._intro}]
        replay = COT_HISTORY if self.strategy in REASONING_STRATEGIES else 0
        for n, turn in enumerate(past):
            chat.append({"role": "user", "content": "Observation:\n" + turn.observation})
            whole = replay and n >= len(past) - replay and turn.reply
            chat.append({"role": "assistant",
                         "content": ("Previous plan:\n" + turn.reply) if whole else turn.answer})
        current = "Current observation:\n" + (f"{status}\n" if status else "") + seen
        chat.append({"role": "user",
                     "content": current + "\n\n" + answer_instructions(self.strategy)})
        return _merge_roles(chat)

    def _ask(self, seen: str, status: str, record: dict[str, Any]) -> str | None:
        """The model's reply, or None when no request could be made or answered."""
        kept = len(self.turns)
        chat = self.messages(seen, status, kept)
        while kept > 0 and not self.budget.fits(chat):
            kept -= 1                         # the oldest history goes first
            chat = self.messages(seen, status, kept)
        record["history_steps"] = kept
        if self._demos and not self.budget.fits(chat):
            # a small window: the demonstrations go before the game itself does
            demos, self._demos = self._demos, []
            chat = self.messages(seen, status, 0)
            self._demos = demos
            record["compaction"] = ["demonstrations dropped"]
        record["prompt_chars"] = sum(len(m["content"]) for m in chat)
        if not self.budget.fits(chat):
            record["parse_errors"].append("the prompt does not fit the model's context")
            return None
        try:
            completion = self.client.complete(chat)
        except ClientError as error:
            record["client_errors"] += 1
            record["client_error"] = f"{type(error).__name__}: {error}"
            if self.on_client_error == "fail":
                raise
            record["parse_errors"].append("the model could not be reached")
            return None
        record["completions"].append(completion.text)
        record["prompt_tokens"] += completion.prompt_tokens
        record["completion_tokens"] += completion.completion_tokens
        record["max_request_tokens"] = completion.prompt_tokens + completion.completion_tokens
        record["latency_s"] += completion.latency_s
        self.budget.learn(chat, None, completion.prompt_tokens)
        return completion.text

    def _fallback(self) -> int | str:
        """BALROG's default action of the family: run as is where the env executes any index
        (BALROG has no mask); else the env's own fallback (legal by construction)."""
        unwrapped = self.env.unwrapped
        if self.vocab.typed and not self.vocab.actions:
            return FALLBACK_COMMANDS.get(unwrapped.family, "look")
        if getattr(unwrapped, "on_invalid", "") == "passthrough":
            return int(unwrapped.fallback_index)
        return int(unwrapped.fallback_action())

    def _label(self, action: int | str) -> str:
        if isinstance(action, str):
            return action
        for option in (*self.vocab.actions, *getattr(self.env.unwrapped, "option_table", ())):
            if option.index == action:
                return option.label
        return str(action)



def _merge_roles(chat: list[dict[str, str]]) -> list[dict[str, str]]:
    """Consecutive messages of one role joined (some chat templates refuse two in a row)."""
    merged: list[dict[str, str]] = []
    for message in chat:
        if merged and merged[-1]["role"] == message["role"]:
            merged[-1] = {"role": message["role"],
                          "content": merged[-1]["content"] + "\n\n" + message["content"]}
        else:
            merged.append(dict(message))
    return merged

