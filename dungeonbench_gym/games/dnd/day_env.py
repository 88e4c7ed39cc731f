"""DnDDayEnv: a D&D Day (3-5 linked encounters with intermissions) as one DecisionEnv episode.

The decision stream is the Encounter env's, plus two decision kinds between fights:
``intermission`` (potions, healing and buff spells, Second Wind, take a short rest, go on) and
``rest`` (spend hit dice, Arcane Recovery, finish the rest). See ``dnd/day.py`` for the rules.

Observation: the Encounter env's keys (during an intermission the grid and the creature table show
the NEXT fight: its map, the enemies, the party on its starting squares) plus ``day``,
Box(0, 1, (49,), float32): the day's sequence (5 slots: present, won, current), the phase
(battle, intermission, rest), short rests left (/5), and per party member (up to 6): HP
fraction, alive, hit dice left (/level), spell slots left (/max, at most 1: Flexible Casting
can create more), potions left (/3). Between fights the ``options`` rows (``option_features``)
carry each option's acting member, the member it is for, its spell and slot level or item, and its
vocabulary id (docs/dnd-observation.md); ``option_features="legacy"`` as in the Encounter env.

Reward: 1/N for each of the N encounters won (so an episode's return is the share won).
Progress: encounters won / N (1 = a full clear, the paper's Day success). Metrics: full_clear,
encounters_won, encounters, party_hp_fraction and survivors at the end, decisions,
short_rests_used, options_mean/options_max over the day's decisions, legal_options_max (before
splitting into groups of 64).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces

from ...dnd import heuristic
from ...dnd.builders.monsters import monster_combatant
from ...dnd.day import MAX_STAGES, Day, DayRun, load_day
from ...dnd.model.durations import DURATION_TEXT
from . import option_features, views
from .env import DnDEncounterEnv, battle_problems, hp_problems

MAX_PARTY = 6
DAY_FEATURES = 3 * MAX_STAGES + 3 + 1 + 5 * MAX_PARTY   # 49 -> see the module docstring
PHASES = ("battle", "intermission", "rest")


class DnDDayEnv(DnDEncounterEnv):
    """One D&D day from scenarios/dnd/days/ (see the module docstring).

    Args:
        day: a day name (e.g. "bandit_hideout") or a path to a .toml file.
        rested: the control condition: every fight starts at full strength, no intermissions
            (the day's encounters played alone).
        option_features: "rich" (default) or "legacy", as in `DnDEncounterEnv`.
        text, on_invalid, render_mode, max_steps: as in `DecisionEnv`.
    """

    family = "dnd"
    ended_label = "The day ended before the party could act (continue)"

    def __init__(self, day: str = "bandit_hideout", *, rested: bool = False, text: bool = False,
                 on_invalid: str = "fallback", render_mode: str | None = None, max_steps: int | None = None,
                 option_features: str = "rich"):
        self.day: Day = load_day(day)
        self.rested = bool(rested)
        super().__init__(self.day.stages[0].scenario.path, text=text, on_invalid=on_invalid,
                         render_mode=render_mode, max_steps=max_steps, option_features=option_features)
        self.observation_space = spaces.Dict({
            **self.observation_space.spaces,
            "day": spaces.Box(0.0, 1.0, (DAY_FEATURES,), np.float32)})
        self.run: DayRun | None = None
        self._statics: dict = {}
        self._enemy_rows: dict = {}
        self._won_before = 0
        self._options_seen = 0
        self._options_max = 0
        self._legal_max = 0

    # ------------------------------------------------------------------ game hooks
    def _game_reset(self, seed: int, options: dict | None) -> None:
        self.run = DayRun(self.day, seed, rested=self.rested, max_options=views.N_OPTIONS)
        self._won_before = 0
        self._options_seen = self._options_max = self._legal_max = 0
        self._agent_decisions = 0
        self._play_enemies()

    @property
    def battle(self):
        return None if self.run is None else self.run.battle

    @battle.setter
    def battle(self, value):   # the Encounter env's constructor sets it; the run owns it here
        pass

    def _game_step(self, action: int) -> tuple[float, bool, bool]:
        d = self.run.decision
        self._options_seen += len(d.options)
        self._options_max = max(self._options_max, len(d.options))
        self._legal_max = max(self._legal_max, self.run.legal_count())
        self.run.choose(int(action))
        self._agent_decisions += 1
        self._play_enemies()
        won = self.run.encounters_won
        reward = (won - self._won_before) / len(self.day.stages)
        self._won_before = won
        return reward, self.run.over, False

    def _play_enemies(self) -> None:
        r = self.run
        while not r.over and not r.party_to_decide():
            r.choose(heuristic.choose(r.battle))
        self._state_cache = None

    def _game_over(self) -> bool:   # the first fight lost before the party's first turn
        return self.run.over

    def check_invariants(self) -> list[str]:
        """As the Encounter env's, over the day: the battle's invariants during a fight; between
        fights the party's hit points in bounds and one pending decision of the party's."""
        r = self.run
        if r is None:
            return []
        if r.phase == "battle":
            return battle_problems(r.battle)
        problems = hp_problems(r.party.values())
        d = r.decision
        if r.over:
            return problems + ([f"the day is over but a {d.kind} decision is pending"] if d else [])
        if d is None or not 1 <= len(d.options) <= views.N_OPTIONS:
            return problems + [f"{r.phase}: {0 if d is None else len(d.options)} options pending "
                               f"(1..{views.N_OPTIONS} allowed)"]
        if d.actor not in r.party:
            problems.append(f"{r.phase}: the deciding creature {d.actor!r} is not in the party")
        return problems

    def _game_mask(self) -> np.ndarray:
        mask = np.zeros(views.N_OPTIONS, np.int8)
        d = self.run.decision if self.run is not None else None
        if d is None:
            mask[0] = 1
        else:
            mask[:len(d.options)] = 1
        return mask

    def _options(self, mask: np.ndarray):
        from ...core.options import Option
        d = self.run.decision if self.run is not None else None
        if d is None:
            return [Option(0, "(the day is over)", "none")]
        return [Option(i, o.label, d.kind) for i, o in enumerate(d.options)]

    def _decision(self) -> str:
        d = self.run.decision if self.run is not None else None
        return d.kind if d is not None else "none"

    # ------------------------------------------------------------------ state for the views
    def state(self) -> dict:
        if self._state_cache is None:
            r = self.run
            if r.phase == "battle" or r.phase == "over":
                self._state_cache = r.battle.to_dict()
            else:
                self._state_cache = self._preview()
        return self._state_cache

    def _preview(self) -> dict:
        """The next fight as a state dict (map, enemies, the party on its squares) with the
        intermission's decision, so the same encoder, text and pictures read it."""
        r = self.run
        stage = r.current
        sc = stage.scenario
        bmap = sc.battle_map()
        squares = self.day.squares(stage)
        rows = []
        for cid, pc in r.party.items():
            if pc.dead:
                continue
            row = pc.to_dict()
            x, y = squares[cid]
            row["pos"] = [x, y, bmap.standing_z(x, y)]
            rows.append(row)
        rows.extend(self._enemies(r.stage))
        d = r.decision
        options = []
        for o in d.options:
            opt: dict[str, Any] = {"label": o.label, "kind": o.kind}
            if o.kind in ("potion", "heal", "day_spell", "hit_die", "second_wind") and o.data:
                target = o.data[-1] if o.kind == "potion" else o.data[0]
                if o.kind in ("heal", "day_spell"):   # a spell cast between fights on one creature names it
                    ids = o.data[3] if len(o.data) > 3 and isinstance(o.data[3], tuple) else ()
                    target = ids[0] if len(ids) == 1 else None
                if target is not None:
                    opt["target"] = target
            options.append(opt)
        return {"map": bmap.to_dict(), "round": 0, "round_limit": sc.round_limit, "objective": sc.objective,
                "outcome": None, "party_side": "party", "initiative": [], "active": None,
                "combatants": sorted(rows, key=lambda c: c["id"]),
                "decision": {"kind": d.kind, "actor": d.actor, "prompt": d.prompt, "options": options},
                "recent_events": r.events()}

    def _enemies(self, stage: int) -> list:
        if stage not in self._enemy_rows:
            sc = self.day.stages[stage].scenario
            bmap = sc.battle_map()
            self._enemy_rows[stage] = [
                monster_combatant(e["monster"], e["id"], "enemies",
                                  (e["at"][0], e["at"][1], bmap.standing_z(*e["at"])), e.get("name")).to_dict()
                for e in sc.enemies]
        return [dict(row) for row in self._enemy_rows[stage]]

    def _static(self) -> np.ndarray:
        k = self.run.stage
        if k not in self._statics:
            self._statics[k] = views.terrain(self.state())
        return self._statics[k]

    def _game_observation(self) -> dict[str, np.ndarray]:
        obs = views.encode(self.state(), self._static(), options=self.option_features == "legacy")
        if self.option_features == "rich":
            r = self.run
            fight = r.phase == "battle" or r.phase == "over"
            obs["options"], obs["option_ids"] = option_features.encode(
                r.decision, r.battle if fight else None, self.state(), party=r.party)
        obs["day"] = self._day_vector()
        return obs

    def _day_vector(self) -> np.ndarray:
        r = self.run
        v = np.zeros(DAY_FEATURES, np.float32)
        for i, row in enumerate(r.stage_table()):
            v[3 * i] = 1
            v[3 * i + 1] = row["status"] == "won"
            v[3 * i + 2] = row["status"] in ("in progress", "next")
        base = 3 * MAX_STAGES
        if r.phase in PHASES:
            v[base + PHASES.index(r.phase)] = 1
        v[base + 3] = r.short_rests_left / 5
        base += 4
        for j, pc in enumerate(list(r.party.values())[:MAX_PARTY]):
            v[base + 5 * j:base + 5 * j + 5] = (
                pc.hp / pc.max_hp, not pc.dead, pc.resources.get("hit_dice", 0) / max(1, pc.level),
                _slot_share(pc.resources), min(1.0, pc.resources.get("potions", 0) / 3))
        return v

    # ------------------------------------------------------------------ progress and metrics
    def _game_progress(self) -> float:
        return self.run.encounters_won / len(self.day.stages)

    def _game_success(self) -> bool:
        return self.run is not None and self.run.full_clear

    def _game_metrics(self) -> dict[str, Any]:
        r = self.run
        if r is None:
            return {}
        party = list(r.party.values())
        return {
            "full_clear": float(r.full_clear),
            "encounters_won": r.encounters_won,
            "encounters": len(self.day.stages),
            "party_hp_fraction": sum(c.hp for c in party) / sum(c.max_hp for c in party),
            "survivors": sum(not c.dead for c in party) / len(party),
            "decisions": self._agent_decisions,
            "short_rests_used": r.short_rests_used,
            "options_mean": self._options_seen / self._agent_decisions if self._agent_decisions else 0.0,
            "options_max": self._options_max,
            "legal_options_max": self._legal_max,   # before splitting into groups of 64
        }

    # ------------------------------------------------------------------ text
    def _game_text(self) -> tuple[str, str]:
        r = self.run
        lines = [f"Day: {self.day.name} ({'rested control: every fight at full strength' if r.rested else f'{r.short_rests_left} of {self.day.short_rests} short rests left'})"]
        for row in r.stage_table():
            lines.append(f"  {row['index'] + 1}. {row['name']} ({row['family']}, {row['objective']}; "
                         f"{', '.join(row['enemies'])}): {row['status']}")
        lines.append("Party: " + "; ".join(_member_text(c) for c in r.party.values()))
        state = self.state()
        if r.phase in ("intermission", "rest"):
            title = f"Next: encounter {r.stage + 1}, {r.current.scenario.name} (enemies and squares as it will start)"
        else:
            title = f"Encounter {r.stage + 1}: {r.current.scenario.name}"
        long_term, short_term = views.text(state, title)
        if r.over:
            short_term = (f"The day is over: {r.encounters_won} of {len(self.day.stages)} encounters won"
                          + (" (full clear)." if r.full_clear else "."))
        return "\n".join(lines) + "\n" + long_term, short_term

    def __getstate__(self):
        state = dict(self.__dict__)
        state["_state_cache"] = None
        return state


def _slot_share(resources: dict) -> float:
    """Spell slots left over the maximum, at most 1: a sorcerer's Flexible Casting creates slots
    beyond the maximum (SRD: they last until a long rest), and 'full or more' reads as full, which
    keeps the day vector inside its Box(0, 1). No slots at all (a fighter) reads 0."""
    top = sum(resources.get("slots_max") or ())
    return min(1.0, sum(resources.get("slots") or ()) / top) if top else 0.0


def _member_text(c) -> str:
    if c.dead:
        return f"{c.cid} dead"
    bits = [f"{c.cid} {c.hp}/{c.max_hp} HP", f"{c.resources.get('hit_dice', 0)} hit dice"]
    slots = c.resources.get("slots")
    if slots:
        bits.append("slots " + " ".join(f"L{i + 1}:{n}" for i, n in enumerate(slots) if n) if any(slots)
                    else "no slots")
    if c.resources.get("potions"):
        bits.append(f"{c.resources['potions']} potion(s)")
    effects = [f"{v['spell']} ({DURATION_TEXT[v['day_duration']]})" for v in c.conditions.values()
               if v.get("day_duration")]
    if effects:
        bits.append("under " + ", ".join(effects))
    return ", ".join(bits)
