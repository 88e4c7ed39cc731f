"""Option features for the D&D envs: one row per option slot that says what the option IS (its
kind, weapon, spell and slot level, class feature, item, reaction, yes or no), its numbers where the
rules give them (hit chance, expected damage, save DC and the target's save odds, the creatures an
area would catch by side, movement cost, opportunity attacks provoked, height), where it points in
the grid frame (x, y, z), and a stable vocabulary id, so the same action is recognised at any index.

Everything is computed here, in the adapter, from the pending :class:`Decision` (its ``Opt`` payloads)
and read-only battle queries (``attack_modifiers``, ``armour_class``, ``cover``, ``area_hits``,
``modified_damage``, ...). Nothing here rolls a die or changes the battle: the engine's decisions
and battles are exactly those of the legacy encoding (tests/test_dnd_digests.py).

Vocabulary (``vocabulary()``): the sorted list of every token below, built from the content data
and the engine's registration tables, so it is the same in every process (no Python ``hash``);
id 0 is an empty slot, id 1 a token outside the vocabulary, and token i of the sorted list has id
i + 2. Tokens, by namespace:

* ``kind:<option kind>``: every kind in ``rules.hooks.OPTION_KINDS`` and the kinds of the decision
  tree and the Day track (``KINDS`` below): ``kind:end_turn``, ``kind:dash``, ``kind:destination``...
* ``direction:<N|NE|...>``: the eight compass directions of a cone or line.
* ``reaction:<key>:take`` / ``reaction:<key>:decline``: every reaction in ``rules.hooks.REACTIONS``
  (``opportunity`` for an opportunity attack), the yes and the no apart.
* ``spell:<key>``: every SRD spell (``content.spells()``).
* ``attack:<key>``: every weapon (``content.weapons()``, and ``<key>-thrown``), every monster
  action (``MonsterSpec.all_actions``), the attack profiles PC builds add (``EXTRA_ATTACKS``).
* ``feature:<key>``: every class feature in ``class_features.json`` and the feature options the
  engine offers (``FEATURES``).
* ``item:<key>``: every magic item (``items.json``) and potion.
* ``monster:<key>``: every monster (a Wild Shape form, a summoned creature).
* ``shove:<push|prone|grapple>``.

An option's token: the reaction token for a reaction; the direction token for a direction; for a
target option the token of what the target is chosen FOR (``attack:longsword``, ``spell:bless``),
so a target decision's slots share it and differ by their target's numbers; for any other option
the content key its payload names (``spell:fire-bolt`` for "Cast Fire Bolt", ``feature:rage``,
``item:potion-of-healing-common``, ``monster:wolf`` for a Wild Shape form), else ``kind:<kind>``.
The vocabulary grows when content does (ids of later tokens shift then); within one version of
the package it is fixed. An unknown token still gets distinct rows: its id bits (features
``id_bit*``) come from a CRC-32 of the token, with ``unknown`` set.

Each feature, its range and scaling, is in ``FEATURES_DOC`` (docs/dnd-observation.md prints it).
"""

from __future__ import annotations

import zlib
from collections import Counter
from functools import lru_cache

import numpy as np

from ...dnd import content, lookup
from ...dnd.dice import parse
from ...dnd.rules.hooks import OPTION_KINDS, REACTIONS
from ...dnd.state import monster_action

N_OPTIONS = 64
GRID = 32
ID_BITS = 12

# what an option is, one-hot
CATEGORIES = ("move", "attack", "spell", "monster_ability", "class_feature", "item", "basic_action",
              "end_turn", "target", "stop", "place", "aim", "reaction_take", "reaction_decline", "group",
              "between_fights")

FEATURES_DOC: tuple[tuple[str, str], ...] = (
    ("present", "1 for a legal option in this slot, 0 for an empty slot"),
    *((f"is_{c}", f"1 if the option is a {c.replace('_', ' ')} option (one-hot over the categories)")
      for c in CATEGORIES),
    ("spell_level", "the slot level a spell is cast at / 9 (0: a cantrip or no spell)"),
    ("spell", "1 if the option casts (or aims, or picks a target of) a spell"),
    ("concentration", "1 if that spell needs concentration"),
    ("bonus_action", "1 if the option is taken as a bonus action (a bonus-action spell, Second Wind, "
                     "Cunning Action, a bonus-action feature)"),
    ("to_hit", "the attack bonus (+ 5) / 20, clipped to [0, 1]; for spells the caster's spell attack"),
    ("damage", "the average damage of one hit (or one failed save; a heal's average healing) / 40, clipped"),
    ("range", "the option's reach or normal range in ft / 120, clipped (0: self or none)"),
    ("x", "x of the square the option points at (target creature, destination, point, the end of a "
          "direction 1 square away, a row group) / 32"),
    ("y", "y of that square / 32"),
    ("z", "its height in ft / 60, clipped (a flyer's destination, a point aloft, a creature aloft)"),
    ("has_position", "1 if x, y, z are set"),
    ("distance", "the distance from the deciding creature to that square or creature, ft / 120, clipped"),
    ("target_row", "the target creature's row in the ``creatures`` table (sorted ids) + 1, / 16 (0: no creature)"),
    ("target_hp", "the target creature's HP / its max HP"),
    ("target_enemy", "1 if the target is a foe of the deciding creature"),
    ("target_ally", "1 if the target is an ally (not itself)"),
    ("target_self", "1 if the target is the deciding creature itself"),
    ("target_ac", "the target's AC now (with cover) / 30"),
    ("p_hit", "the exact chance to hit the target (advantage, disadvantage, cover, Bless/Bane, Sanctuary; "
              "as `lookup.attack_odds`; 1 for an auto-hit dart)"),
    ("p_crit", "the chance of a critical hit"),
    ("expected_damage", "the expected damage to the target, crits included, after resistances, / 40, clipped"),
    ("save_dc", "the save DC the option forces / 30"),
    ("p_save", "the target's chance to succeed on that save (for an area: the mean over the creatures caught)"),
    ("enemies_caught", "foes of the decider an area placed here would catch / 8, clipped"),
    ("allies_caught", "allies of the decider (itself included) it would catch / 8, clipped"),
    ("move_cost", "movement the option spends in ft / 120, clipped (destination, route, Stand up)"),
    ("provokes", "opportunity attacks the route provokes / 4, clipped"),
    ("hazards", "hazard squares the route enters / 4, clipped"),
    ("amount", "a count the option carries / 64, clipped: options inside a group, darts left, uses left"),
    ("member", "between fights and in a member group: the party member who acts, (index in the sorted "
               "party ids + 1) / 7; 0 if none"),
    ("target_member", "between fights: the member the option is for, the same scale"),
    ("variant", "a code of the option's modifiers beside its main key (Quickened Spell's 'quickened', Rage "
                "with Frenzy's 'frenzy', a rider's 'smite'; a route: the creatures it provokes), CRC-32 of the "
                "words mod 1023 + 1, / 1024; 0 if none"),
    ("take", "for a reaction or a yes/no choice: 1 for yes (take the reaction), 0 for no"),
    ("unknown", "1 if the option's token is not in the vocabulary (its id bits are then a CRC-32 of it)"),
    *((f"id_bit{i}", f"bit {i} of the vocabulary id (so a plain MLP can tell ids apart)") for i in range(ID_BITS)),
)
FEATURE_NAMES = tuple(n for n, _ in FEATURES_DOC)
N_FEATURES = len(FEATURE_NAMES)
F = {n: i for i, n in enumerate(FEATURE_NAMES)}
_BIT0 = F["id_bit0"]
_CAT = {c: F["is_" + c] for c in CATEGORIES}

# option kinds offered outside rules.hooks.OPTION_KINDS: the decision tree's and the Day track's
KINDS = ("over", "group", "back", "stop", "target", "destination", "route", "point_x", "point_y", "point_z",
         "direction", "reaction", "continue", "short_rest", "finish_rest", "hit_die", "arcane", "potion",
         "item_potion", "second_wind", "heal", "day_spell", "wild_shape", "wild_shape_end", "control",
         "ward_kind", "x", "y", "end_turn")
# feature options of the engine's own (Opt kind "feature", data[0]) that the class tables name otherwise
FEATURES = ("arm", "carceri", "chain", "cleansing_touch", "countercharm", "draconic_presence", "dragon_wings",
            "empty_body", "fast_potion", "holy_nimbus", "inspire", "palm_end", "patient_defense",
            "preserve_life", "rage", "reckless", "revert", "sacred_weapon", "step_dash", "step_disengage",
            "stillness", "to_points", "to_slot", "turn_unholy", "twin", "volley", "whirlwind", "wholeness",
            "wild_shape", "wild_shape_into")
EXTRA_ATTACKS = ("unarmed", "unarmed-strike", "martial-arts", "flurry", "spiritual-weapon", "offhand")
DIRECTIONS = {(0, -1): "N", (1, -1): "NE", (1, 0): "E", (1, 1): "SE", (0, 1): "S", (-1, 1): "SW",
              (-1, 0): "W", (-1, -1): "NW"}

_BASIC = {"dash", "disengage", "dodge", "help", "hide", "ready", "escape", "escape_web", "stand", "shove",
          "first_aid", "interact", "cunning_dash", "cunning_disengage", "cunning_hide", "hand_use",
          "multiattack", "legendary_pass", "recall"}
_MOVE = {"move", "stand"}
_ITEM = {"potion", "item", "item_potion"}
_FEATURE = {"feature", "action_surge", "second_wind", "turn_undead", "spiritual_weapon", "rampage", "reckless",
            "aggressive", "form", "wild_shape", "wild_shape_end", "arcane", "hit_die"}
_BONUS = {"second_wind", "cunning_dash", "cunning_disengage", "cunning_hide", "spiritual_weapon", "aggressive"}
_DAY = {"continue", "short_rest", "finish_rest", "hit_die", "arcane", "item_potion", "second_wind", "heal",
        "day_spell", "wild_shape", "wild_shape_end", "ward_kind", "back"}


# ---------------------------------------------------------------------------------- vocabulary
@lru_cache(maxsize=1)
def vocabulary() -> tuple[str, ...]:
    """Every token, sorted (token i has id i + 2; 0 = empty slot, 1 = unknown). See the module doc."""
    toks: set[str] = {f"kind:{k}" for k in (*OPTION_KINDS, *KINDS)}
    toks |= {f"direction:{d}" for d in DIRECTIONS.values()}
    toks |= {f"reaction:{r}:{yn}" for r in (*REACTIONS, "opportunity") for yn in ("take", "decline")}
    toks |= {f"spell:{k}" for k in content.spells()}
    toks |= {f"attack:{k}" for w in content.weapons() for k in (w, f"{w}-thrown")}
    toks |= {f"attack:{k}" for k in EXTRA_ATTACKS}
    for m in content.monsters().values():
        toks |= {f"attack:{a.key}" for a in m.all_actions}
    toks |= {f"monster:{k}" for k in content.monsters()}
    toks |= {f"feature:{f['key']}" for f in content.load_json("class_features")}
    toks |= {f"feature:{k}" for k in FEATURES}
    toks |= {f"item:{k}" for k in content.load_json("items")["items"]}
    toks |= {f"item:{k}" for k in content.potions()}
    toks |= {f"shove:{k}" for k in ("push", "prone", "grapple")}
    return tuple(sorted(toks))


@lru_cache(maxsize=1)
def _ids() -> dict[str, int]:
    return {t: i + 2 for i, t in enumerate(vocabulary())}


def vocab_size() -> int:
    return len(vocabulary()) + 2


def token_id(token: str) -> int:
    """The vocabulary id of a token (1 if unknown)."""
    return _ids().get(token, 1)


@lru_cache(maxsize=4096)
def _id_bits(token: str) -> tuple[int, np.ndarray]:
    i = _ids().get(token)
    code = i if i is not None else zlib.crc32(token.encode()) % (1 << ID_BITS)
    bits = np.array([(code >> b) & 1 for b in range(ID_BITS)], np.float32)
    return (i if i is not None else 1), bits


@lru_cache(maxsize=1)
def _key_namespaces() -> dict[str, str]:
    """A content key -> its namespace, for payload strings (spells win over attacks of one name)."""
    out: dict[str, str] = {}
    for t in reversed(vocabulary()):   # later namespaces first, so the earlier ones overwrite
        ns, _, key = t.partition(":")
        if ns in ("spell", "attack", "feature", "item", "monster", "shove"):
            out[key] = ns
    for t in vocabulary():
        ns, _, key = t.partition(":")
        if ns == "spell":
            out[key] = ns
    return out


# ---------------------------------------------------------------------------------- encoding
ERRORS: Counter = Counter()   # (decision kind, option kind, error, message) -> count: what fell back


def encode(decision, battle, state: dict, party: dict | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(rows, ids) for a pending decision: rows (N_OPTIONS, N_FEATURES) float32 in [0, 1], ids
    (N_OPTIONS,) int32 vocabulary ids. ``battle`` is None between fights (the Day track), where
    ``state`` (the preview dict) and ``party`` (id -> Combatant) stand in for it."""
    rows = np.zeros((N_OPTIONS, N_FEATURES), np.float32)
    ids = np.zeros(N_OPTIONS, np.int32)
    if decision is None:   # the battle is over: slot 0 is the one harmless legal index
        _set_token(rows[0], ids, 0, "kind:over")
        rows[0, 0] = 1
        return rows, ids
    ctx = _Context(decision, battle, state, party)
    known = _ids()
    unknown = []
    n = min(N_OPTIONS, len(decision.options))
    for i, o in enumerate(decision.options[:n]):
        r = rows[i]
        try:
            token = ctx.fill(o, r)
        except Exception as e:   # a feature the rules cannot price here never breaks the observation
            ERRORS[(decision.kind, o.kind, type(e).__name__, str(e)[:80])] += 1
            token = ctx.fallback_token(o)
        vid = known.get(token)
        if vid is None:
            unknown.append((i, token))
        else:
            ids[i] = vid
    rows[:n, 0] = 1
    rows[:n, _BIT0:_BIT0 + ID_BITS] = _bit_table()[ids[:n]]
    for i, token in unknown:   # rare: a kind or key this version's vocabulary does not hold
        _set_token(rows[i], ids, i, token)
    np.clip(rows[:n], 0.0, 1.0, out=rows[:n])   # each feature is scaled into [0, 1]; this is the net (7 us)
    return rows, ids


@lru_cache(maxsize=1)
def _bit_table() -> np.ndarray:
    """Row i: the ID_BITS bits of id i (ids above 2**ID_BITS wrap; the id column keeps them apart)."""
    v = np.arange(vocab_size())[:, None]
    return ((v >> np.arange(ID_BITS)[None, :]) & 1).astype(np.float32)


def _set_token(r: np.ndarray, ids: np.ndarray, i: int, token: str) -> None:
    vid, bits = _id_bits(token)
    ids[i] = vid
    r[F["unknown"]] = vid == 1
    r[_BIT0:_BIT0 + ID_BITS] = bits


class _Context:
    """What every option of one decision shares: the decider, the pending step, the creatures."""

    def __init__(self, decision, battle, state, party):
        self.d = decision
        self.b = battle
        self.kind = decision.kind
        if battle is not None:
            self.creatures = battle.creatures
            self.pending = battle.pending or {}
        else:
            self.creatures = party or {}
            self.pending = {}
        self.actor = self.creatures.get(decision.actor)
        self.party_ids = sorted(cid for cid, c in self.creatures.items()
                                if self.actor is not None and c.side == self.actor.side) if battle is None \
            else sorted(cid for cid, c in self.creatures.items() if c.side == battle.party_side)
        self.use = self.pending.get("use")
        ids = sorted(self.creatures) if battle is not None else [c["id"] for c in state["combatants"]]
        self.rows = {cid: i for i, cid in enumerate(ids[:16])}

    # -------------------------------------------------------------- per option
    def fallback_token(self, o) -> str:
        return f"kind:{o.kind}"

    def fill(self, o, r) -> str:
        k = o.kind
        if self.kind == "reaction":
            return self._reaction(o, r)
        if k == "group":
            return self._group(o, r)
        if self.b is None or self.kind in ("intermission", "rest"):
            return self._day(o, r)
        if k == "target":
            return self._target(o, r)
        if k == "stop":
            r[_CAT["stop"]] = 1
            self._use_numbers(r)
            return "kind:stop"
        if k == "destination":
            return self._destination(o, r)
        if k == "route":
            return self._route(o, r)
        if k in ("point_x", "point_y", "point_z", "direction"):
            return self._aim(o, r)
        if k == "end_turn":
            r[_CAT["end_turn"]] = 1
            return "kind:end_turn"
        return self._menu(o, r)

    # -------------------------------------------------------------- the action menu
    def _menu(self, o, r) -> str:
        k, data, c = o.kind, o.data, self.actor
        if k == "spell":
            key, level = data[0], data[1]
            r[_CAT["spell"]] = 1
            self._spell_numbers(r, key, level)
            _variant(r, data[2:])
            if "quickened" in data[2:]:
                r[F["bonus_action"]] = 1
            return f"spell:{key}"
        if k == "attack":
            r[_CAT["attack"]] = 1
            key = data[0]
            source = [v for v in data[1:] if v != "attack"]
            _variant(r, source)   # an off-hand, a Flurry of Blows, a Martial Arts or a horde attack
            if any(v in ("offhand", "flurry", "martial_arts", "bonus") for v in source):
                r[F["bonus_action"]] = 1
            try:
                self._attack_numbers(r, c.attack(key))
            except KeyError:
                pass
            return f"attack:{key}"
        if k == "save_action":
            r[_CAT["monster_ability"]] = 1
            self._save_action_numbers(r, data[0])
            return f"attack:{data[0]}"
        if k == "shove":
            r[_CAT["basic_action"]] = 1
            return f"shove:{data[0]}"
        if k in _MOVE:
            r[_CAT["move"]] = 1
            if k == "stand":
                r[F["move_cost"]] = (c.speed / 2) / 120 if c is not None else 0
            elif c is not None:
                r[F["move_cost"]] = c.economy.movement / 120
            return f"kind:{k}"
        if k in _ITEM:
            r[_CAT["item"]] = 1
        elif k in _FEATURE:
            r[_CAT["class_feature"]] = 1
        elif k in _BASIC:
            r[_CAT["basic_action"]] = 1
        else:
            r[_CAT["monster_ability" if k.startswith(("ms_", "monster_", "legendary")) else "class_feature"]] = 1
        if k in _BONUS:
            r[F["bonus_action"]] = 1
        token = self._payload(o, r)
        return token or f"kind:{k}"

    def _payload(self, o, r) -> str | None:
        """Creature ids and content keys named in a payload: the target's numbers, the key's token."""
        token = None
        ns = _key_namespaces()
        for v in o.data:
            if isinstance(v, str):
                if v in self.creatures:
                    self._creature(r, self.creatures[v])
                elif token is None and v in ns:
                    token = f"{ns[v]}:{v}"
                    if ns[v] == "spell":
                        r[F["spell"]] = 1
            elif isinstance(v, bool):
                r[F["take"]] = v
            elif isinstance(v, int) and 0 < v <= 64 and token is not None and token.startswith("spell:"):
                r[F["spell_level"]] = v / 9
            elif isinstance(v, int):
                r[F["amount"]] = min(1.0, abs(v) / 64)
        if o.kind == "feature" and o.data and isinstance(o.data[0], str):
            token = f"feature:{o.data[0]}"
            _variant(r, o.data[1:])
            for v in o.data[1:]:
                if isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= 9:
                    r[F["spell_level"]] = v / 9
        return token

    # -------------------------------------------------------------- creatures and attacks
    def _xyz(self, r, x, y, z=0) -> None:
        r[F["x"]], r[F["y"]] = min(1.0, max(0.0, x / GRID)), min(1.0, max(0.0, y / GRID))
        r[F["z"]] = min(1.0, max(0, z) / 60)
        r[F["has_position"]] = 1

    def _creature(self, r, t) -> None:
        x, y, z = t.pos
        self._xyz(r, x, y, z)
        c = self.actor
        row = self.rows.get(t.cid)
        if row is not None:
            r[F["target_row"]] = (row + 1) / 16
        r[F["target_hp"]] = t.hp / t.max_hp if t.max_hp else 0
        if c is not None:
            r[F["target_self"]] = t is c
            r[F["target_enemy"]] = t.side != c.side
            r[F["target_ally"]] = t.side == c.side and t is not c
            if self.b is not None:
                r[F["distance"]] = min(1.0, self.b.distance(c, t) / 120)
                r[F["target_ac"]] = min(1.0, self.b.armour_class(t) / 30)

    def _attack_numbers(self, r, a) -> None:
        r[F["to_hit"]] = min(1.0, max(0.0, (a.to_hit + 5) / 20))
        r[F["damage"]] = min(1.0, sum(parse(p.dice).average for p in a.damage) / 40)
        r[F["range"]] = min(1.0, (a.reach if a.melee else a.range_normal) / 120)

    def _spell_numbers(self, r, key, level) -> None:
        sp = content.spell(key)
        c = self.actor
        r[F["spell"]] = 1
        r[F["spell_level"]] = (level or 0) / 9
        r[F["concentration"]] = bool(sp.concentration)
        r[F["bonus_action"]] = sp.casting_time == "bonus_action"
        r[F["range"]] = min(1.0, (sp.range_feet or 0) / 120)
        dice = sp.damage_for(level, c.level if c is not None else 1) or sp.heal_for(level)
        if dice:
            r[F["damage"]] = min(1.0, parse(dice).average / 40)
        if c is not None:
            res = c.resources
            if sp.attack_type is not None:
                r[F["to_hit"]] = min(1.0, max(0.0, (res.get("spell_attack", 0) + 5) / 20))
            if sp.save_ability and res.get("spell_dc"):
                r[F["save_dc"]] = min(1.0, res["spell_dc"] / 30)

    def _save_action_numbers(self, r, key) -> None:
        spec = monster_action(self.actor, key)
        if spec.save is not None:
            r[F["save_dc"]] = min(1.0, (spec.save.dc or 0) / 30)
            dmg = sum(parse(d.dice).average for d in spec.save.damage)
            r[F["damage"]] = min(1.0, dmg / 40)
        r[F["range"]] = min(1.0, (spec.range or 0) / 120)

    # -------------------------------------------------------------- the pending use (target, aim)
    def _use_token(self) -> str:
        u = self.use
        if not u:
            return "kind:target"
        head = u[0]
        if head == "attack":
            return f"attack:{u[1]}"
        if head in ("spell", "dart", "more"):
            return f"spell:{u[1]}"
        if head == "save_action":
            return f"attack:{u[1]}"
        if head == "shove":
            return f"shove:{u[1]}"
        if head == "feature" and len(u) > 1 and isinstance(u[1], str):
            return f"feature:{u[1]}"
        ns = _key_namespaces()
        for v in u[1:]:
            if isinstance(v, str) and v in ns:
                return f"{ns[v]}:{v}"
        return f"kind:{head}" if f"kind:{head}" in _ids() else "kind:target"

    def _use_numbers(self, r) -> None:
        """The pending use's own numbers (spell level, to-hit, damage) on a target or aim option."""
        u = self.use
        if not u:
            return
        c = self.actor
        try:
            if u[0] == "spell":
                self._spell_numbers(r, u[1], u[2] if len(u) > 2 else 0)
            elif u[0] in ("dart", "more"):
                lv = u[2] if u[0] == "more" else (self.pending.get("level") or 1)
                self._spell_numbers(r, u[1], lv if isinstance(lv, int) else 0)
                if u[0] == "dart":
                    r[F["amount"]] = min(1.0, u[2] / 64)
            elif u[0] == "attack" and c is not None:
                self._attack_numbers(r, c.attack(u[1]))
            elif u[0] == "save_action":
                self._save_action_numbers(r, u[1])
        except Exception:
            pass

    def _target(self, o, r) -> str:
        r[_CAT["target"]] = 1
        t = self.creatures[o.data[0]]
        self._creature(r, t)
        self._use_numbers(r)
        u, c, b = self.use, self.actor, self.b
        if not u or c is None:
            return self._use_token()
        if u[0] == "attack":
            self._odds(r, c, c.attack(u[1]), t)
        elif u[0] == "dart":
            r[F["p_hit"]] = 1
            r[F["expected_damage"]] = min(1.0, b.modified_damage(t, 35, "force", True) / 10 / 40)
        elif u[0] in ("spell", "more"):
            sp = content.spell(u[1])
            if sp.attack_type is not None:
                self._odds(r, c, lookup.attack_profile(c, u[1]), t)
            elif sp.save_ability and c.resources.get("spell_dc"):
                r[F["p_save"]] = self._p_save(t, sp.save_ability, c.resources["spell_dc"], True)
        elif u[0] == "save_action":
            spec = monster_action(c, u[1])
            if spec.save is not None:
                r[F["p_save"]] = self._p_save(t, spec.save.ability, spec.save.dc, False)
        elif u[0] == "shove":
            r[F["take"]] = 0
        return self._use_token()

    def _p_save(self, t, ability, dc, magic) -> float:
        return lookup.save_odds(self.b, t.cid, ability, dc, magic)

    def _odds(self, r, c, a, t) -> None:
        """The exact hit and crit chances and the expected damage, crits and resistances included
        (``lookup.attack_odds_of``, the numbers the LLM tools give)."""
        odds = lookup.attack_odds_of(self.b, c, a, t)
        r[F["target_ac"]] = min(1.0, odds["ac"] / 30)
        r[F["p_hit"]], r[F["p_crit"]] = odds["p_hit"], odds["p_crit"]
        r[F["expected_damage"]] = min(1.0, odds["expected_damage"] / 40)

    # -------------------------------------------------------------- movement
    def _destination(self, o, r) -> str:
        r[_CAT["place"]] = 1
        pos = o.data[0]
        self._xyz(r, pos[0], pos[1], pos[2] if len(pos) > 2 else 0)
        c = self.actor
        if c is not None:
            r[F["distance"]] = min(1.0, 5 * max(abs(pos[0] - c.pos[0]), abs(pos[1] - c.pos[1])) / 120)
        lab = tuple.__getitem__(o, 0)
        if isinstance(lab, tuple):   # a DestinationOpt: (x, y, up, cost, nearest foe's distance, foe)
            r[F["move_cost"]] = min(1.0, lab[3] / 120)
        if self.use:
            self._use_numbers(r)
            return self._use_token() if self._use_token() != "kind:target" else "kind:destination"
        return "kind:destination"

    def _route(self, o, r) -> str:
        r[_CAT["place"]] = 1
        route = self.pending["routes"][o.data[0]]
        r[F["move_cost"]] = min(1.0, route.cost_ft / 120)
        r[F["provokes"]] = min(1.0, len(route.provoked) / 4)
        r[F["hazards"]] = min(1.0, sum(h[1] if isinstance(h[1], int) else 1 for h in route.hazards) / 4)
        _variant(r, sorted(route.provoked))   # who it provokes: two routes of one cost and count still differ
        if route.path:
            x, y = route.path[len(route.path) // 2][:2]   # the route's middle square tells routes apart
            self._xyz(r, x, y, route.path[len(route.path) // 2][2] if len(route.path[0]) > 2 else 0)
        return "kind:route"

    def _aim(self, o, r) -> str:
        r[_CAT["aim"]] = 1
        c, p, b = self.actor, self.pending, self.b
        self._use_numbers(r)
        k = o.kind
        if k == "point_x":
            self._xyz(r, o.data[0], 0)
            r[F["has_position"]] = 0.5   # x only: y is chosen next
            return "kind:point_x"
        if k == "direction":
            dx, dy = o.data[0][0], o.data[0][1]
            self._xyz(r, c.pos[0] + dx, c.pos[1] + dy, c.pos[2])
            where = tuple(o.data[0])
            token = f"direction:{DIRECTIONS.get((dx, dy), 'N')}"
        else:
            where = (p["x"], o.data[0]) if k == "point_y" else (p["x"], p["y"], o.data[0])
            self._xyz(r, where[0], where[1], where[2] if len(where) > 2 else 0)
            token = f"kind:{k}"
        if c is not None:
            x, y = r[F["x"]] * GRID, r[F["y"]] * GRID
            r[F["distance"]] = min(1.0, 5 * max(abs(x - c.pos[0]), abs(y - c.pos[1])) / 120)
            hits = b.area_hits(c, p["use"], where)
            r[F["enemies_caught"]] = min(1.0, sum(h.side != c.side for h in hits) / 8)
            r[F["allies_caught"]] = min(1.0, sum(h.side == c.side for h in hits) / 8)
            save = self._area_save(p["use"])
            if save is not None and hits:
                r[F["p_save"]] = sum(self._p_save(h, save[0], save[1], save[2]) for h in hits) / len(hits)
        return token

    def _area_save(self, use):
        c = self.actor
        if use[0] == "spell":
            sp = content.spell(use[1])
            if sp.save_ability and c.resources.get("spell_dc"):
                return sp.save_ability, c.resources["spell_dc"], True
        elif use[0] == "save_action":
            spec = monster_action(c, use[1])
            if spec.save is not None:
                return spec.save.ability, spec.save.dc, False
        return None

    # -------------------------------------------------------------- reactions, groups
    def _reaction(self, o, r) -> str:
        p = self.pending
        key = p.get("reaction") or "opportunity"
        take = bool(o.data[0]) if o.data else False
        if o.data and not isinstance(o.data[0], bool) and o.data[0] not in (0, None, "", False):
            take = True
        r[_CAT["reaction_take" if take else "reaction_decline"]] = 1
        r[F["take"]] = take
        c = self.actor
        other = p.get("mover") or p.get("attacker") or p.get("caster")
        if other in self.creatures and c is not None:
            t = self.creatures[other]
            self._creature(r, t)
            if take and p.get("attack") and self.b is not None:
                try:
                    self._attack_numbers(r, c.attack(p["attack"]))
                    self._odds(r, c, c.attack(p["attack"]), t)
                except Exception:
                    pass
        rest = []
        for v in o.data[1:] if o.data else ():
            rest.extend(v if isinstance(v, tuple) else (v,))
        for v in rest:
            if isinstance(v, int) and not isinstance(v, bool):
                r[F["spell_level"]] = min(1.0, v / 9)
        _variant(r, rest)
        return f"reaction:{key}:{'take' if take else 'decline'}"

    def _group(self, o, r) -> str:
        r[_CAT["group"]] = 1
        data = o.data
        label = o.label
        n = label.rsplit("(", 1)[-1].split(" ")[0] if label.endswith("options)") else ""
        if n.isdigit():
            r[F["amount"]] = min(1.0, int(n) / 64)
        if data and data[0] == "key":
            key = data[1]
            if key.startswith("row y="):
                r[F["y"]] = int(key[6:].split()[0]) / GRID
                r[F["has_position"]] = 0.5
            else:
                r[F["x"]] = (zlib.crc32(key.encode()) % 1024) / 1024   # another kind of group key
        elif data and data[0] == "span":
            total = max(1, self.b.legal_count if self.b is not None else 64)
            r[F["x"]], r[F["y"]] = data[1] / total, data[2] / total
        elif data and data[0] in self.party_ids:   # a member's options between fights
            r[F["member"]] = (self.party_ids.index(data[0]) + 1) / 7
        return "kind:group"

    # -------------------------------------------------------------- between fights (the Day track)
    def _day(self, o, r) -> str:
        k, data = o.kind, o.data
        r[_CAT["between_fights"]] = 1
        ns = _key_namespaces()
        token = None
        members = []
        for v in data:
            if isinstance(v, str):
                if v in self.party_ids:
                    members.append(v)
                elif token is None and v in ns:
                    token = f"{ns[v]}:{v}"
            elif isinstance(v, tuple):   # a spell's targets, Arcane Recovery's slot levels
                if v and all(isinstance(x, str) for x in v):
                    if len(v) == 1 and v[0] in self.party_ids:
                        members.append(v[0])
                    else:
                        r[F["amount"]] = min(1.0, len(v) / 64)
                elif v and all(isinstance(x, int) for x in v):   # Arcane Recovery: the slots regained
                    r[F["spell_level"]] = min(1.0, max(v) / 9)
                    r[F["amount"]] = min(1.0, len(v) / 64)
            elif isinstance(v, int) and not isinstance(v, bool):
                if token is not None and token.startswith("spell:") and 0 < v <= 9:
                    r[F["spell_level"]] = v / 9
                else:
                    r[F["amount"]] = min(1.0, abs(v) / 64)
        if members:
            r[F["member"]] = (self.party_ids.index(members[0]) + 1) / 7
            r[F["target_member"]] = (self.party_ids.index(members[-1]) + 1) / 7
            t = self.creatures.get(members[-1])
            if t is not None:
                r[F["target_hp"]] = t.hp / t.max_hp if t.max_hp else 0
                r[F["target_self"]] = members[-1] == members[0]
                r[F["target_ally"]] = members[-1] != members[0]
        if token is not None and token.startswith("spell:"):
            sp = content.spell(token[6:])
            r[F["spell"]] = 1
            r[F["concentration"]] = bool(sp.concentration)
        if k in ("x", "y") and data:
            r[F[k]] = min(1.0, data[0] / GRID)
        return token if token is not None and k not in ("potion",) else f"kind:{k}"


# ---------------------------------------------------------------------------------- the numbers
def _variant(r: np.ndarray, values) -> None:
    words = [v for v in values if isinstance(v, str)]
    if words:
        r[F["variant"]] = (zlib.crc32("|".join(words).encode()) % 1023 + 1) / 1024
