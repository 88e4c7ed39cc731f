"""DnDEncounterEnv: one encounter of the D&D engine as a DecisionEnv.

The agent plays every decision of the party (actions, targets, destinations, routes, points,
directions, its reactions); the heuristic planner plays the enemies inside ``step``. Options
fill the first slots of Discrete(64) in the engine's canonical order; a decision with more
options is split by the engine (a group first, then the choice), never truncated.

Observation (numeric), encoded by ``views.encode`` from ``Battle.to_dict()``, the state dict
that the text view and the ``ansi`` map also read, and by ``option_features.encode`` from the
pending decision (every key, feature, range and scaling: docs/dnd-observation.md):
* ``grid`` Box(0, 1, (8, 32, 32), float32), the map padded to 32x32: walls, impassable,
  difficult, height (/ 30 ft), party, enemies, the deciding creature, objective squares.
* ``creatures`` Box(0, 1, (16, 16), float32): one row per combatant (by id).
* ``options`` Box(0, 1, (64, 63), float32): one feature row per option slot
  (``option_features.FEATURE_NAMES``): what the option is (category one-hot, spell and slot level,
  bonus action, modifiers), its numbers from the rules (to-hit, damage, range, hit and crit chances
  and expected damage against the target, save DC and the target's save odds, creatures an area
  would catch by side, movement cost, provoked attacks, hazards), where it points (x, y, z, distance,
  the target's row, HP, side, AC), and the bits of its vocabulary id.
* ``option_ids`` Box(0, V - 1, (64,), int32): each slot's stable vocabulary id (0: empty slot,
  1: unknown; ``option_features.vocabulary()``), the same for the same action at any index.
* ``decision`` Box(0, 1, (12,), float32): the decision kind, one-hot over ``views.DECISION_KINDS``
  (action, target, destination, route, point_x, point_y, point_z, direction, reaction, group, and
  the Day track's intermission and rest); all zero when no decision is pending (the battle is over).

``option_features="legacy"``: ``options`` is the earlier Box(0, 1, (64, 12), float32) of
``views.OPTION_FEATURES`` and there is no ``option_ids``: the observation before the rich features,
exactly, for comparing the two.

The enemies may act first and win before the party's first decision (the SRD lets a party drop
before its turn comes). Such a reset is not rerolled: it opens on one legal option, decision
``over`` ("The battle ended before the party could act (continue)"), with
``info["ended_before_first_decision"]``; its step ends the episode as the loss it is (see
``DecisionEnv``). ``check_invariants()`` lists broken engine invariants, for the conformance fuzz.

Reward 1 when the party meets the objective (progress and success too), else 0. Progress:
the share of enemy HP removed (defeat, protect), of the way to the goal (reach) or of the rounds
survived (survive), kept below 1 until the win.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces

from ...core.env import DecisionEnv
from ...core.options import Option
from ...dnd import heuristic
from ...dnd.scenario import Scenario, encounter_names, load_encounter
from . import option_features, views
from .views import (
    CREATURE_FEATURES,
    DECISION_KINDS,
    GRID,
    GRID_CHANNELS,
    MAX_CREATURES,
    N_OPTIONS,
    OPTION_FEATURES,
)


class DnDEncounterEnv(DecisionEnv):
    """One D&D encounter from scenarios/dnd/encounters/ (see the module docstring).

    Args:
        scenario: an encounter name (e.g. "goblin_ambush") or a path to a .toml file.
        option_features: "rich" (default): the option rows of ``option_features.py`` and the
            ``option_ids`` key; "legacy": the 12-feature rows of ``views.OPTION_FEATURES`` and no
            ``option_ids``, exactly the observation before the rich features (for comparisons).
        text, on_invalid, render_mode, max_steps: as in `DecisionEnv`.
    """

    metadata: ClassVar[dict] = {"render_modes": ["ansi", "rgb_array"], "render_fps": 4}
    family = "dnd"
    fallback_index = 0
    ended_label = "The battle ended before the party could act (continue)"

    def __init__(self, scenario: str = "goblin_ambush", *, text: bool = False, on_invalid: str = "fallback",
                 render_mode: str | None = None, max_steps: int | None = None, option_features: str = "rich"):
        self.scenario: Scenario = load_encounter(scenario)
        self.option_features = option_space_kind(option_features)
        super().__init__(
            n_actions=N_OPTIONS,
            observation_spaces={
                "grid": spaces.Box(0.0, 1.0, (len(GRID_CHANNELS), GRID, GRID), np.float32),
                "creatures": spaces.Box(0.0, 1.0, (MAX_CREATURES, len(CREATURE_FEATURES)), np.float32),
                **option_spaces(self.option_features),
                "decision": spaces.Box(0.0, 1.0, (len(DECISION_KINDS),), np.float32),
            },
            text=text, on_invalid=on_invalid, render_mode=render_mode, max_steps=max_steps)
        self.battle = None
        self._static_grid = None
        self._state_cache = None
        self._agent_decisions = 0
        self._enemy_hp0 = 1
        self._goal_d0 = 1

    def state(self) -> dict:
        """The battle's state dict now (what the views read); built once per step."""
        if self._state_cache is None:
            self._state_cache = self.battle.to_dict()
        return self._state_cache

    # ------------------------------------------------------------------ game hooks
    def _game_reset(self, seed: int, options: dict | None) -> None:
        self.battle = self.scenario.build(seed, max_options=N_OPTIONS)
        b = self.battle
        self._state_cache = None
        self._agent_decisions = 0
        self._enemy_hp0 = max(1, sum(c.max_hp for c in b.creatures.values() if c.side != b.party_side))
        self._goal_d0 = max(1, self._goal_distance())
        self._static_grid = views.terrain(self.state())
        self._play_enemies()

    def _game_step(self, action: int) -> tuple[float, bool, bool]:
        self.battle.choose(int(action))
        self._agent_decisions += 1
        self._play_enemies()
        b = self.battle
        if b.outcome is None:
            return 0.0, False, False
        return (1.0 if b.outcome == "win" else 0.0), True, False

    def _play_enemies(self) -> None:
        b = self.battle
        while b.outcome is None and b.creatures[b.decision.actor].side != b.party_side:
            b.choose(heuristic.choose(b))
        self._state_cache = None

    def _game_over(self) -> bool:
        return self.battle.outcome is not None

    def _game_mask(self) -> np.ndarray:
        mask = np.zeros(N_OPTIONS, np.int8)
        d = self.battle.decision
        if d is None:   # the episode is over: one harmless slot keeps the mask non-empty
            mask[0] = 1
        else:
            mask[:len(d.options)] = 1
        return mask

    def _options(self, mask: np.ndarray):
        d = self.battle.decision if self.battle is not None else None
        if d is None:
            return [Option(0, "(battle over)", "none")]
        return [Option(i, o.label, d.kind) for i, o in enumerate(d.options)]

    def _decision(self) -> str:
        d = self.battle.decision if self.battle is not None else None
        return d.kind if d is not None else "none"

    def _game_observation(self) -> dict[str, np.ndarray]:
        obs = views.encode(self.state(), self._static_grid, options=self.option_features == "legacy")
        if self.option_features == "rich":
            obs["options"], obs["option_ids"] = option_features.encode(self.battle.decision, self.battle,
                                                                       self.state())
        return obs

    # ------------------------------------------------------------------ progress
    def _goal_distance(self) -> int:
        b = self.battle
        cells = b.objective.get("cells")
        up = [c for c in b.creatures.values() if c.side == b.party_side and c.conscious]
        if not cells or not up:
            return self._goal_d0 if cells else 0
        return min(b.map.distance_ft(c.cells, [tuple(x)], c.pos[2], None) for c in up for x in cells)

    def _game_progress(self) -> float:
        # DungeonBench's Encounter metric: the win. Partial credit would rank a
        # near-wipe that chipped the boss above a clean retreat; it is reported
        # apart, as metrics["objective_progress"].
        return 1.0 if self.battle.outcome == "win" else 0.0

    def _objective_progress(self) -> float:
        """How far toward the objective (damage dealt, distance, rounds survived or held)."""
        b = self.battle
        if b.outcome == "win":
            return 1.0
        t = b.objective["type"]
        if t == "reach":
            p = 1 - self._goal_distance() / self._goal_d0
        elif t == "hold":   # consecutive rounds held so far
            p = b.objective.get("held", 0) / b.objective["rounds"]
        elif t == "survive":
            p = (b.round - 1) / b.round_limit
        else:
            left = sum(c.hp for c in b.creatures.values() if c.side != b.party_side)
            p = 1 - left / self._enemy_hp0
        return min(0.99, max(0.0, p))

    def _game_success(self) -> bool:
        return self.battle is not None and self.battle.outcome == "win"

    def _game_metrics(self) -> dict[str, Any]:
        b = self.battle
        if b is None:
            return {}
        party = [c for c in b.creatures.values() if c.side == b.party_side]
        return {
            "win": float(b.outcome == "win"),
            "party_hp_fraction": sum(c.hp for c in party) / sum(c.max_hp for c in party),
            "survivors": sum(not c.dead for c in party) / len(party),
            "rounds": b.round,
            "decisions": self._agent_decisions,
            "options_mean": b.options_seen / b.decisions if b.decisions else 0.0,
            "options_max": b.options_max,
            "legal_options_max": b.legal_max,   # before splitting into groups of 64
            "objective_progress": round(self._objective_progress(), 4),
        }

    # ------------------------------------------------------------------ invariants
    def check_invariants(self) -> list[str]:
        """What is wrong with the battle now, in words (empty when all holds): the conformance
        fuzz (core/conformance.py, benchmarks/fuzz.py) asks after every step."""
        return battle_problems(self.battle) if self.battle is not None else []

    # ------------------------------------------------------------------ text and pictures
    def _game_text(self) -> tuple[str, str]:
        return views.text(self.state(), self.scenario.name)

    def _render_ansi(self) -> str:
        long_term, short_term = self._game_text()   # the map is part of the text
        return f"{long_term}\n{short_term}"

    def _render_rgb(self) -> np.ndarray:
        return views.rgb(self.state())

    def __getstate__(self):
        state = dict(self.__dict__)
        state["_state_cache"] = None
        return state


def option_space_kind(name: str) -> str:
    if name not in ("rich", "legacy"):
        raise ValueError(f"option_features={name!r}: use 'rich' (the default) or 'legacy'")
    return name


def option_spaces(kind: str) -> dict:
    """The option keys of the observation space: the rich rows and their vocabulary ids, or the
    legacy 12-feature rows."""
    if kind == "legacy":
        return {"options": spaces.Box(0.0, 1.0, (N_OPTIONS, len(OPTION_FEATURES)), np.float32)}
    return {"options": spaces.Box(0.0, 1.0, (N_OPTIONS, option_features.N_FEATURES), np.float32),
            "option_ids": spaces.Box(0, option_features.vocab_size() - 1, (N_OPTIONS,), np.int32)}


def scenario_ids() -> list[str]:
    return encounter_names()


def hp_problems(creatures) -> list[str]:
    """Hit points within [0, max HP], temporary hit points never negative."""
    problems = []
    for c in creatures:
        if not 0 <= c.hp <= c.max_hp:
            problems.append(f"{c.cid}: hp {c.hp} outside [0, max hp {c.max_hp}]")
        if c.temp_hp < 0:
            problems.append(f"{c.cid}: temporary hp {c.temp_hp} below 0")
    return problems


def battle_problems(b) -> list[str]:
    """The engine's invariants on a battle between the party's decisions (the enemies played):
    hit points within [0, max HP] (temporary HP apart, never negative); exactly one pending
    decision, the party's, with between 1 and N_OPTIONS options and a kind the encoder knows, while
    the battle goes on, and none once it is over; the turn order naming only creatures in the
    battle, none twice after round 1, with an active creature; the deciding creature in the battle,
    in the turn order and conscious (a banished one, away but alive, may act)."""
    problems = hp_problems(b.creatures.values())
    d = b.decision
    if b.outcome is not None:
        if d is not None:
            problems.append(f"battle over ({b.outcome}) but a {d.kind} decision is pending")
        return problems
    if d is None:
        return problems + ["battle not over but no decision is pending"]
    if not 1 <= len(d.options) <= N_OPTIONS:
        problems.append(f"{d.kind} decision has {len(d.options)} options (1..{N_OPTIONS} allowed)")
    if d.kind not in DECISION_KINDS:
        problems.append(f"decision kind {d.kind!r} is not one of views.DECISION_KINDS")
    missing = [cid for cid in b.order if cid not in b.creatures]
    if missing:
        problems.append(f"turn order names creatures not in the battle: {missing}")
    twice = sorted({cid for cid in b.order if b.order.count(cid) > 1})
    if twice and b.round > 1:   # only Thief's Reflexes gives a second place, in round 1 alone
        problems.append(f"turn order holds {twice} twice in round {b.round}")
    if b.active is None:
        problems.append(f"no active creature (turn index {b.turn_index} of {len(b.order)})")
    actor = b.creatures.get(d.actor)
    if actor is None:
        problems.append(f"the deciding creature {d.actor!r} is not in the battle")
        return problems
    if d.actor not in b.order:
        problems.append(f"the deciding creature {d.actor} is not in the initiative order")
    if actor.side != b.party_side:
        problems.append(f"the pending decision is {d.actor}'s, not the party's")
    if not actor.conscious and "removed" not in actor.conditions:   # banished: away, alive, may act
        problems.append(f"the deciding creature {d.actor} is {'dead' if actor.dead else 'at 0 hp'}")
    return problems
