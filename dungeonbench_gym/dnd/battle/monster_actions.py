"""Monsters' own actions the engine resolves: save actions (breath, gaze), swallowing and engulfing, a
hydra's heads, splitting, summoning kin, Turn Undead's save.

Part of :class:`~dungeonbench_gym.dnd.engine.Battle`.
"""

from __future__ import annotations

from .. import content, spell_buffs, spell_walls, spell_wards
from ..classes import dispatch
from ..classes.cleric import TURN_UNDEAD_FT
from ..builders.monsters import monster_combatant
from ..grid import SQUARE_FT, size_squares
from ..model.options import Opt
from ..model.slots import spend_slot
from ..rules import spell_data
from ..rules.hooks import OPTION_KINDS, TARGET_USES, TargetUse
from ..state import INCAPACITATING, SIZES, Combatant, Economy, monster_action


class MonsterActionsMixin:
    """Stat-block actions beyond attacks, and Turn Undead."""

    def _save_action_options(self, c: Combatant) -> list[Opt]:
        """A monster's save actions that are ready (recharged, uses left) and can affect someone."""
        out = []
        for key in c.save_actions:
            if not c.recharge.get(c.resources.get("recharge_of", {}).get(key, key), True) \
                    or c.resources.get(f"uses:{key}", 1) <= 0:
                continue
            spec = monster_action(c, key)
            if spec.requires_no_grapple and any(o.conditions.get("grappled", {}).get("by") == c.cid
                                                for o in self.creatures.values()):
                continue
            if spec.area is None and not self.save_targets(c, spec):
                continue
            sv = spec.save
            what = ", ".join([d.dice + " " + d.type for d in sv.damage] + list(sv.conditions))
            if spec.area is None:
                where = f"one creature within {spec.range or 5} ft"
            elif spec.area.shape == "own_space":
                where = "creatures in its space"
            elif spec.area.shape == "emanation":
                where = f"{spec.area.size}-ft radius around it"
            else:
                where = f"{spec.area.size}-ft {spec.area.shape}"
            abil = "/".join(a.upper() for a in sv.ability_choices) or sv.ability.upper()
            out.append(Opt(f"{spec.name} ({where}, DC {sv.dc} {abil}, {what})", "save_action", (key,)))
        return out

    def save_targets(self, c: Combatant, spec) -> list[Combatant]:
        """Single-target save actions: a foe in range (or grappled by it), not exempt."""
        if spec.target_filter == "grappled_by_self":
            pool = [o for o in self.enemies_of(c) if o.conditions.get("grappled", {}).get("by") == c.cid]
        else:
            pool = [o for o in self.enemies_of(c) if self.distance(c, o) <= (spec.range or 5)
                    and self.line_of_effect(c, o)]
        return [o for o in pool if self.may_target(c, o) and not self.save_exempt(c, spec, o)]

    def save_exempt(self, c: Combatant, spec, t: Combatant) -> bool:
        types = set(spec.exempt_types) | set(spec.save.exempt_types)
        sub = content.monster(t.monster).subtype if t.monster else None
        if t.creature_type in types or (sub and any(x in sub for x in types)):
            return True
        if spec.save.size_max and SIZES.index(t.size) > SIZES.index(spec.save.size_max):
            return True
        if self.wards and spell_wards.exempt(self, c, spec, t):   # Magic Circle: no possession inside
            return True
        return f"{c.cid}:{spec.key}" in t.resources.get("immune_to", ())

    def _start_save_action(self, c: Combatant, key: str, legendary: bool = False, queued: bool = False) -> None:
        spec = monster_action(c, key)
        use = ("save_action", key, "legendary" if legendary else "queue") if legendary or queued else ("save_action", key)
        shape = spec.area.shape if spec.area else None
        if shape is None:
            self.pending = {"kind": "target", "actor": c.cid, "use": use}
        elif shape in ("emanation", "own_space"):
            self._resolve_area(c, use, None)
        elif shape in ("sphere", "cylinder"):
            self.pending = {"kind": "point_x", "actor": c.cid, "use": use}
        else:
            self.pending = {"kind": "direction", "actor": c.cid, "use": use}

    def _monster_save(self, c: Combatant, key: str, hits: list, legendary: bool = False, queued: bool = False,
                      origin=None) -> None:
        """A monster save action on those it affects: damage rolled once for all, half or none on
        a success, conditions on a failure with the stat block's duration and repeat save.
        ``legendary``: taken between turns, costing legendary points, not its action. ``origin``:
        where it comes from, for a Dex save's cover (default: the monster; a sphere's centre)."""
        spec = monster_action(c, key)
        sv = spec.save
        if queued:   # a step of its multiattack: the action is already paid
            c.economy.attack_queue = c.economy.attack_queue[1:]
        elif not legendary:
            c.economy.actions -= 1
        key_of = c.resources.get("recharge_of", {}).get(key, key)   # a breath shares its group's recharge
        if key_of in c.recharge:
            c.recharge[key_of] = False
        if f"uses:{key}" in c.resources:
            c.resources[f"uses:{key}"] -= 1
        c.conditions.pop("hidden", None)
        self.event("save_action", f"{c.cid} uses {spec.name}", creature=c.cid, action=key)
        rolled = [(d.type, self.roller.roll_damage(d.dice, what=f"damage {key} {d.type}")) for d in sv.damage]
        dur = (sv.rounds, sv.until, sv.repeat_save, sv.immune_on_success, tuple(sv.exempt_types))
        for t in hits:
            if t.dead or self.save_exempt(c, spec, t):
                continue
            ability = max(sv.ability_choices, key=lambda a: t.saves[a]) if sv.ability_choices else sv.ability
            ok = self.saving_throw(t, ability, sv.dc, big=True, adv=self._sure_footed(t, ability, sv.conditions),
                                   condition=sv.conditions, origin=c if origin is None else origin)
            for dtype, amount in rolled:
                self.damage(t, dispatch.area_damage(t, ability, ok, sv.half_on_success, amount), dtype,
                            magical=True, source=c.cid)   # (Evasion)
            if ok and sv.immune_on_success:
                t.resources["immune_to"] = tuple(t.resources.get("immune_to", ())) + (f"{c.cid}:{key}",)
            if not ok:
                for cond in sv.conditions:
                    self.save_condition(c, t, cond, ability, sv.dc, dur)
                    if cond == "breath_slowed":   # no reactions from now on
                        t.economy.reaction = False
                for _ in range(c.resources.get("breath_push", {}).get(key, 0) // SQUARE_FT):
                    dest = self._push_square(c, t)   # Repulsion Breath: pushed straight away
                    if dest is None:
                        break
                    t.pos = dest
        if legendary:   # between turns: play goes on to the next creature
            if not self.check_outcome():
                self.next_turn()
            return
        self.back_to_menu(c)

    def save_condition(self, c: Combatant, t: Combatant, cond: str, ability: str, dc: int, dur: tuple) -> None:
        """A condition from a failed save, with its stat-block duration: ``rounds`` (1 minute = 10),
        ``until`` the end of the source's / target's next turn, ``repeat_save`` at the end of each of
        the target's turns (success ends it)."""
        rounds, until, repeat = dur[:3] if dur else (None, None, None)
        if cond in t.condition_immunities or t.dead or (cond != "prone" and not t.conscious):
            return
        if dispatch.blocks_condition(self, t, cond):   # Mindless Rage, Aura of Devotion / Courage
            return
        if self.wards and spell_wards.shields(self, c, t, cond):   # Magic Circle: no charm or fear
            return
        if t.conditions and spell_buffs.wards(t, cond):   # Mind Blank, Heroes' Feast
            return
        if self._ally_ward(t, cond):   # Steadfast
            self.event("condition", f"{t.cid} is not {cond}: an ally stands by it", creature=t.cid)
            return
        entry = {"by": c.cid, "round": self.round, "turn_of": self.pending.get("actor") if self.pending else None}
        if repeat == "end_of_turn":
            entry.update(repeat=ability, dc=dc, magic=False)
        if rounds:
            entry["until_round"] = self.round + rounds
        if until:
            entry["until"] = until
        t.conditions[cond] = entry
        if cond in INCAPACITATING:
            self.end_concentration(t)
        if cond in ("paralyzed", "stunned", "unconscious", "incapacitated", "petrified"):
            self.release_grapples_by(t)
        self.event("condition", f"{t.cid} is {cond}", creature=t.cid, condition=cond)

    def turnable(self, c: Combatant) -> list[Combatant]:
        """The hostile undead within 30 ft that Turn Undead would affect: SRD, each undead that can
        see or hear the cleric (:meth:`watches`, :meth:`hears`)."""
        return [o for o in self.enemies_of(c) if o.creature_type == "undead" and o.conscious
                and "turned" not in o.conditions and self.distance(c, o) <= TURN_UNDEAD_FT
                and (self.watches(o, c) or self.hears(o, c))]

    def _turn_undead(self, c: Combatant) -> None:
        """SRD Channel Divinity: Turn Undead. Each undead within 30 ft makes a Wis save against the
        cleric's spell save DC; on a failure it is turned for 1 minute or until it takes damage
        (Destroy Undead at 5: a failed save destroys one of CR 1/2 or lower)."""
        c.economy.actions -= 1
        c.resources["channel_divinity"] -= 1
        c.conditions.pop("hidden", None)
        self.event("channel_divinity", f"{c.cid} presents a holy symbol: Turn Undead", creature=c.cid)
        cap = c.resources.get("destroy_undead_cr")
        for t in self.turnable(c):
            defiance = any("turn_defiance" in o.features and (o is t or (t.monster == "ghoul" and o.side == t.side
                           and not o.incapacitated and self.distance(o, t) <= 30))
                           for o in self.creatures.values() if not o.dead)   # a ghast and ghouls near it
            if self.saving_throw(t, "wis", c.resources["spell_dc"], adv="turn_resistance" in t.features or defiance):
                continue
            if cap and t.monster and content.monster(t.monster).challenge_rating <= cap:
                self.die(t, "Destroy Undead")
                continue
            t.conditions["turned"] = {"by": c.cid, "until": self.round + 10}
            t.economy.reaction = False
            self.end_concentration(t)
            self.event("condition", f"{t.cid} is turned", creature=t.cid, condition="turned")
        self.back_to_menu(c)

    # ---------------------------------------------------------------- a priest's and a knight's boosts
    def _monster_boost_options(self, c: Combatant, has_action: bool) -> list[Opt]:
        out = []
        slots = c.resources.get("slots", ())
        if "divine_eminence" in c.features and c.economy.bonus and "eminence" not in c.conditions \
                and any(a.melee for a in c.attacks):
            for lv in range(1, len(slots) + 1):
                if slots[lv - 1] > 0:
                    out.append(Opt(f"Divine Eminence (level {lv} slot: +{2 + lv}d6 radiant on melee hits this turn)",
                                   "divine_eminence", (lv,)))
        if "leadership" in c.features and has_action and c.resources.get("uses:leadership", 0) > 0:
            out.append(Opt("Leadership (1 minute: allies within 30 ft add a d4 to attacks and saves)", "leadership"))
        eat = c.resources.get("consume_life")
        if eat and c.economy.bonus:   # a will-o'-wisp on a dying creature it sees within 5 ft
            for t in sorted(self.enemies_of(c), key=lambda o: o.cid):
                if t.hp == 0 and not t.dead and self.distance(c, t) <= eat["range"] and "blinded" not in c.conditions:
                    out.append(Opt(f"Consume Life: {t.cid} (DC {eat['dc']} CON or dies)", "consume_life", (t.cid,)))
        kids = c.resources.get("children")
        if kids and has_action and c.resources.get("uses:children-of-the-night", 0) > 0:
            out.append(Opt(f"Children of the Night ({kids['count']} {kids['monster']} arrive in {kids['delay']} rounds)",
                           "children_of_the_night"))
        rise = c.resources.get("create_specter")
        if rise and has_action and sum(o.resources.get("risen_by") == c.cid and not o.dead
                                       for o in self.creatures.values()) < rise["max"]:
            for t in sorted(self.creatures.values(), key=lambda o: o.cid):
                if t.dead and t.creature_type == "humanoid" and "risen" not in t.resources \
                        and self.round - t.resources.get("died_round", -10 ** 6) <= 10 \
                        and self.distance(c, t) <= rise["range"]:
                    out.append(Opt(f"Create Specter from {t.cid}'s corpse", "create_specter", (t.cid,)))
        return out

    def _call_children(self, c: Combatant) -> None:
        """Children of the Night: the call now; the beasts come at the start of the vampire's turn
        once the rolled rounds have passed."""
        kids = c.resources["children"]
        c.economy.actions -= 1
        c.resources["uses:children-of-the-night"] = 0
        due = self.round + self.roller.roll(kids["delay"], what=f"children delay {c.cid}")
        c.resources["children_due"] = (due, self.roller.roll(kids["count"], what=f"children count {c.cid}"))
        self.event("children_call", f"{c.cid} calls the children of the night (round {due})", creature=c.cid)
        self.back_to_menu(c)

    def _children_arrive(self, c: Combatant) -> None:
        """They arrive beside the vampire (as many as there is room for) and act right after it."""
        due, count = c.resources["children_due"]
        if self.round < due:
            return
        del c.resources["children_due"]
        at = self.order.index(c.cid) + 1
        for i in range(count):
            spot = self.free_spot_beside(c, 1)
            if spot is None:
                break
            s = monster_combatant(c.resources["children"]["monster"], f"{c.cid}_child_{i + 1}", c.side, spot)
            s.initiative = c.initiative
            self.creatures[s.cid] = s
            self.order.insert(at + i, s.cid)
            self.event("summon", f"{s.cid} answers {c.cid}'s call", creature=s.cid, by=c.cid)
        self._reach_cache = None

    def _create_specter(self, c: Combatant, corpse: Combatant) -> None:
        """A wraith raises a humanoid dead this minute as a specter on its side, in the corpse's
        space or the nearest free one; it acts right after the wraith."""
        rise = c.resources["create_specter"]
        c.economy.actions -= 1
        corpse.resources["risen"] = True
        n = sum(o.resources.get("risen_by") == c.cid for o in self.creatures.values()) + 1
        taken = {cell for o in self.creatures.values() if not o.dead for cell in o.cells}
        spot = tuple(corpse.pos) if not set(corpse.cells) & taken else \
            self.free_spot_beside(corpse, size_squares(content.monster(rise["monster"]).size))
        if spot is None:
            spot = tuple(corpse.pos)
        s = monster_combatant(rise["monster"], f"{c.cid}_specter_{n}", c.side, spot)
        s.resources["risen_by"] = c.cid
        s.initiative = c.initiative
        self.creatures[s.cid] = s
        at = self.order.index(c.cid) + 1
        self.order.insert(at, s.cid)
        if at <= self.turn_index:
            self.turn_index += 1
        self._reach_cache = None
        self.event("create_specter", f"{c.cid} raises {corpse.cid}'s spirit as {s.cid}", creature=c.cid, new=s.cid)
        self.back_to_menu(c)

    def _leadership_die(self, t: Combatant) -> int:
        """A d4 for t's attack roll or save when a leading knight that is not incapacitated sees t
        within 30 ft (one die at a time; the knight's own rolls do not count)."""
        for o in sorted(self.allies_of(t), key=lambda o: o.cid):
            if "leading" in o.conditions and o.incapacitated:   # it ends if the knight is incapacitated
                del o.conditions["leading"]
            if "leading" in o.conditions and self.distance(o, t) <= 30 \
                    and "blinded" not in o.conditions and self.line_of_effect(o, t):
                return self.roller.roll("1d4", what=f"leadership {o.cid}->{t.cid}")
        return 0

    # ---------------------------------------------------------------- Engulf (a shambling mound)
    def _engulfed_by(self, c: Combatant) -> list[Combatant]:
        return [o for o in self.creatures.values() if o.conditions.get("engulfed", {}).get("by") == c.cid]

    def _engulf_hit(self, c: Combatant, t: Combatant) -> None:
        """The second slam this turn on one Medium or smaller target: grappled (escape DC 14) and
        engulfed: blinded and restrained while the grapple lasts (one creature at a time)."""
        eg = c.resources["engulf"]
        mark = (self.round, self.turn_index, t.cid)
        tally = c.resources.get("engulf_tally")
        n = tally[1] + 1 if tally and tally[0] == mark else 1
        c.resources["engulf_tally"] = (mark, n)
        if n < eg["hits"] or t.dead or SIZES.index(t.size) > SIZES.index(eg["size_max"]) \
                or "grappled" in t.condition_immunities or len(self._engulfed_by(c)) >= eg["capacity"]:
            return
        t.conditions["grappled"] = {"by": c.cid, "dc": eg["escape_dc"]}
        for cond in ("engulfed", "blinded", "restrained"):
            t.conditions[cond] = {"by": c.cid, "engulfed": True}
        self.event("engulf", f"{c.cid} engulfs {t.cid} (escape DC {eg['escape_dc']})", creature=c.cid, target=t.cid)

    def _engulf_tick(self, c: Combatant) -> None:
        """The start of the mound's turn: each engulfed creature saves or takes its damage."""
        eg = c.resources["engulf"]
        for o in sorted(self._engulfed_by(c), key=lambda o: o.cid):
            if not o.dead and not self.saving_throw(o, eg["ability"], eg["dc"]):
                self.damage(o, self.roller.roll_damage(eg["damage"], what=f"engulf {c.cid}"), eg["type"],
                            source=c.cid)

    # ---------------------------------------------------------------- Swallow (a frog, a remorhaz)
    def _can_swallow(self, c: Combatant, t: Combatant) -> bool:
        """A creature c grapples, small enough, while c has room (a frog holds one at a time)."""
        sw = c.resources.get("swallow")
        return bool(sw) and not t.dead and t.conditions.get("grappled", {}).get("by") == c.cid \
            and SIZES.index(t.size) <= SIZES.index(sw["size_max"]) \
            and (sw["capacity"] is None or len(self.swallowed_by(c)) < sw["capacity"])

    def swallowed_by(self, c: Combatant) -> list[Combatant]:
        return [o for o in self.creatures.values() if o.conditions.get("swallowed", {}).get("by") == c.cid]

    def _swallow(self, c: Combatant, t: Combatant) -> None:
        """SRD Swallow: the grapple ends; blinded and restrained inside, total cover from outside."""
        if not self._can_swallow(c, t):
            return
        self.release(t)
        for cond in ("swallowed", "blinded", "restrained"):
            t.conditions[cond] = {"by": c.cid, "swallowed": True}
        t.pos = tuple(c.pos)   # inside its space: it moves with it
        self.event("swallow", f"{c.cid} swallows {t.cid}", creature=c.cid, target=t.cid)

    def inside_apart(self, a: Combatant, b: Combatant) -> bool:
        """Total cover: one of the two is inside a swallower the other is not the swallower of
        (nor inside too), or enclosed (Forcecage, Resilient Sphere: spell_walls.apart)."""
        ca, cb = a.conditions, b.conditions
        if "enclosed" in ca or "enclosed" in cb:
            return spell_walls.apart(a, b)
        if "swallowed" not in ca and "swallowed" not in cb:
            return False   # (asked for every pair, every area and every attack: the common answer first)
        sa, sb = ca.get("swallowed", {}).get("by"), cb.get("swallowed", {}).get("by")
        return (sa is not None or sb is not None) and sa != sb and sa != b.cid and sb != a.cid

    def _digest(self, c: Combatant) -> None:
        """The start of the swallower's turn: acid for everyone inside."""
        for o in sorted(self.swallowed_by(c), key=lambda o: o.cid):
            if not o.dead:
                self.damage(o, self.roller.roll_damage(c.resources["swallow"]["acid"], what=f"acid {c.cid}"),
                            "acid", source=c.cid)

    def _regurgitate_check(self) -> None:
        """End of any turn: a swallower hurt enough from inside this turn saves (Con) or spits out
        everyone, prone within 10 ft."""
        for s in sorted(self.creatures.values(), key=lambda o: o.cid):
            s.resources.pop("turn_damage", None)   # a hydra's tally of damage in one turn
            hurt = s.resources.pop("hurt_inside", 0)
            rule = (s.resources.get("swallow") or {}).get("regurgitate")
            if not rule or s.dead or hurt < rule["damage"] or self.saving_throw(s, "con", rule["dc"]):
                continue
            for o in sorted(self.swallowed_by(s), key=lambda o: o.cid):
                self.spit_out(s, o, "regurgitated")

    def spit_out(self, s: Combatant, o: Combatant, why: str) -> None:
        """Out of the swallower, prone, in the nearest free space around it."""
        for cond in ("swallowed", "blinded", "restrained"):
            if o.conditions.get(cond, {}).get("swallowed"):
                del o.conditions[cond]
        spot = self.free_spot_beside(s, o.squares, exclude=o)
        if spot:
            o.pos = spot
        if not o.dead:
            o.conditions["prone"] = {}
        self.event("spit_out", f"{o.cid} is out of {s.cid} ({why}), prone", creature=o.cid, source=s.cid)

    def _head_damage(self, t: Combatant, amount: int, dtype: str) -> None:
        """SRD Multiple Heads: 25+ damage in a single turn kills one head (all dead: the hydra dies);
        the stopping type (fire) since its last turn keeps heads from growing back."""
        rule = t.resources["heads_rule"]
        if dtype == rule["stop"]:
            t.resources["heads_stopped"] = True
        before = t.resources.get("turn_damage", 0)
        t.resources["turn_damage"] = before + amount
        if before < rule["lose_at"] <= before + amount and t.resources["heads"] > 0:
            t.resources["heads"] -= 1
            t.resources["heads_lost"] = t.resources.get("heads_lost", 0) + 1
            self.event("head_lost", f"{t.cid} loses a head ({t.resources['heads']} left)", creature=t.cid)
            if t.resources["heads"] == 0:
                self.die(t, "its last head died")

    def _regrow_heads(self, c: Combatant) -> None:
        """The end of a hydra's turn: two heads for each that died, 10 HP each, unless fire hit it."""
        lost, stopped = c.resources.pop("heads_lost", 0), c.resources.pop("heads_stopped", False)
        if lost and not stopped and not c.dead:
            grown = lost * c.resources["heads_rule"]["regrow"]
            c.resources["heads"] += grown
            self.event("heads_grow", f"{c.cid} grows {grown} heads ({c.resources['heads']})", creature=c.cid)
            self.heal(c, grown * c.resources["heads_rule"]["hp_per_head"], "regrown heads")

    def free_spot_beside(self, s: Combatant, n: int, exclude: Combatant | None = None) -> tuple | None:
        """The nearest free n x n space touching s's space (s's own space counts as taken)."""
        taken = {cell for x in self.creatures.values() if (not x.dead or x is s) and x is not exclude
                 for cell in x.cells}
        spots = [(x, y) for y in range(s.pos[1] - n, s.pos[1] + s.squares + 1)
                 for x in range(s.pos[0] - n, s.pos[0] + s.squares + 1)
                 if self.map.fits(x, y, n) and not any((x + i, y + j) in taken for i in range(n) for j in range(n))]
        if not spots:
            return None
        x, y = min(spots, key=lambda p: (abs(p[0] - s.pos[0]) + abs(p[1] - s.pos[1]), p[1], p[0]))
        return (x, y, self.map.standing_z(x, y, n))

    def _split(self, t: Combatant, dtype: str) -> None:
        """SRD Split (its reaction): a Medium or larger jelly with at least 10 HP hit by lightning or
        slashing damage becomes two, each with half its hit points (rounded down) and one size
        smaller; the new one acts right after it (simplification: no room beside it, no split)."""
        import copy

        if dtype not in ("lightning", "slashing") or t.dead or t.hp < 10 or t.incapacitated \
                or SIZES.index(t.size) < SIZES.index("medium") or not t.economy.reaction:
            return
        size = SIZES[SIZES.index(t.size) - 1]
        spot = self.free_spot_beside(t, size_squares(size))
        if spot is None:
            return
        t.economy.reaction = False
        t.size, t.hp = size, t.hp // 2
        t.max_hp = t.hp
        twin = copy.deepcopy(t)
        k = 2
        while f"{t.cid}_{k}" in self.creatures:
            k += 1
        twin.cid, twin.pos, twin.conditions, twin.concentration = f"{t.cid}_{k}", spot, {}, None
        twin.economy = Economy()
        self.creatures[twin.cid] = twin
        at = self.order.index(t.cid) + 1
        self.order.insert(at, twin.cid)
        if at <= self.turn_index:
            self.turn_index += 1
        self._reach_cache = self._cache = None
        self.event("split", f"{t.cid} splits: {twin.cid} appears ({t.hp} HP each)", creature=t.cid, new=twin.cid)

    def release(self, c: Combatant) -> None:
        by = c.conditions.get("grappled", {}).get("by")
        for cond in ("grappled", "restrained"):
            if c.conditions.get(cond, {}).get("by") == by:
                c.conditions.pop(cond, None)
        for held in ("engulfed", "smothered"):   # the grapple held it inside a mound / under a rug
            if c.conditions.get(held, {}).get("by") == by:
                for cond in (held, "blinded"):
                    c.conditions.pop(cond, None)

    def release_grapples_by(self, grappler: Combatant) -> None:
        for o in self.creatures.values():
            if o.conditions.get("grappled", {}).get("by") == grappler.cid:
                self.release(o)


@OPTION_KINDS.handles("monster_invisibility")   # an imp's Invisibility: concentration, ends when it attacks
def _monster_invisibility(b, c: Combatant, p: dict, opt: Opt) -> None:
    c.economy.actions -= 1
    spell_data.turn_invisible(b, c)
    b.back_to_menu(c)


@OPTION_KINDS.handles("divine_eminence")   # a bonus action and a slot: radiant dice on its melee hits this turn
def _divine_eminence(b, c: Combatant, p: dict, opt: Opt) -> None:
    level = opt.data[0]
    c.economy.bonus = False
    spend_slot(c, level)
    c.conditions["eminence"] = {"dice": f"{2 + level}d6", "until_turn_end": True}
    b.event("divine_eminence", f"{c.cid} spends a level {level} slot: +{2 + level}d6 radiant on "
            "melee hits this turn", creature=c.cid)
    b.back_to_menu(c)


@OPTION_KINDS.handles("consume_life")   # a will-o'-wisp: a Con save against this magic or die; it heals
def _consume_life(b, c: Combatant, p: dict, opt: Opt) -> None:
    eat, t = c.resources["consume_life"], b.creatures[opt.data[0]]
    c.economy.bonus = False
    b.event("consume_life", f"{c.cid} feeds on {t.cid}'s life", creature=c.cid, target=t.cid)
    if not b.saving_throw(t, eat["ability"], eat["dc"], magic=True):
        b.die(t, "Consume Life")
        b.heal(c, b.roller.roll(eat["heal"], what=f"consume life {c.cid}"), "Consume Life")
    b.back_to_menu(c)


@OPTION_KINDS.handles("children_of_the_night")   # a vampire
def _children_of_the_night(b, c: Combatant, p: dict, opt: Opt) -> None:
    b._call_children(c)


@OPTION_KINDS.handles("create_specter")   # a wraith
def _create_specter(b, c: Combatant, p: dict, opt: Opt) -> None:
    b._create_specter(c, b.creatures[opt.data[0]])


@OPTION_KINDS.handles("leadership")   # 1 minute of a d4 for allies' attack rolls and saves
def _leadership(b, c: Combatant, p: dict, opt: Opt) -> None:
    c.economy.actions -= 1
    c.resources["uses:leadership"] = 0
    c.conditions["leading"] = {"until_round": b.round + 10}
    b.event("leadership", f"{c.cid} takes command: allies within 30 ft add a d4", creature=c.cid)
    b.back_to_menu(c)


@OPTION_KINDS.handles("monster_heal")
def _monster_heal(b, c: Combatant, p: dict, opt: Opt) -> None:
    b.pending = {"kind": "target", "actor": c.cid, "use": ("monster_heal", "healing-touch")}


@OPTION_KINDS.handles("aggressive")   # an orc's bonus-action move: a destination decision for this move only
def _aggressive(b, c: Combatant, p: dict, opt: Opt) -> None:
    c.economy.bonus = False
    c.resources["aggressive_move"] = c.economy.movement
    c.economy.movement = b.speed(c)
    if b._has_destination(c):
        b.pending = {"kind": "destination", "actor": c.cid}
    else:
        c.economy.movement = c.resources.pop("aggressive_move")
        b.back_to_menu(c)


@OPTION_KINDS.handles("reckless")
def _reckless(b, c: Combatant, p: dict, opt: Opt) -> None:
    c.conditions["reckless"] = {"round": b.round}
    b.event("reckless", f"{c.cid} attacks recklessly", creature=c.cid)
    b.back_to_menu(c)


@OPTION_KINDS.handles("rampage")   # half its speed more to move, and the bite it has earned
def _rampage(b, c: Combatant, p: dict, opt: Opt) -> None:
    c.economy.bonus = False
    c.economy.movement += b.speed(c) // 2
    c.resources.pop("rampage_ready", None)
    c.resources["rampage_bite"] = True
    b.back_to_menu(c)


@OPTION_KINDS.handles("monster_teleport")   # a stat block's Teleport: where to, a destination decision
def _monster_teleport(b, c: Combatant, p: dict, opt: Opt) -> None:
    b.pending = {"kind": "destination", "actor": c.cid,
                 "use": ("monster_teleport", opt.data[0], c.resources["teleports"][opt.data[0]])}


@OPTION_KINDS.handles("turn_undead")
def _turn_undead(b, c: Combatant, p: dict, opt: Opt) -> None:
    b._turn_undead(c)


@OPTION_KINDS.handles("save_action")
def _save_action(b, c: Combatant, p: dict, opt: Opt) -> None:
    b._start_save_action(c, opt.data[0], queued=len(opt.data) > 1)


# ==================================================================== targets of monsters' actions
# (rules/hooks.py TARGET_USES: the creatures a pending target decision offers, and what choosing one does)

def _healing_touch_targets(b, c: Combatant, use: tuple) -> list[Opt]:
    """Healing Touch: another creature it touches."""
    return [Opt(f"Healing Touch on {t.cid} [{t.hp}/{t.max_hp} HP]", "target", (t.cid,))
            for t in b._touch_heal_targets(c)]


def _healing_touch_target(b, c: Combatant, use: tuple, t: Combatant) -> None:
    """Healing Touch: hit points, and the ills it names end."""
    c.economy.actions -= 1
    c.resources["uses:healing-touch"] -= 1
    b.heal(t, b.roller.roll(c.resources["healing_touch"], what=f"heal {c.cid} healing-touch"), "Healing Touch")
    for cond in ("blinded", "deafened", "poisoned"):
        t.conditions.pop(cond, None)
    b.back_to_menu(c)


def _save_action_targets(b, c: Combatant, use: tuple) -> list[Opt]:
    spec = monster_action(c, use[1])
    sv = spec.save
    return [Opt(f"{use[1]} on {t.cid} [{t.hp}/{t.max_hp} HP, {sv.ability.upper()} save "
                f"{t.saves[sv.ability]:+d} vs DC {sv.dc}, {b.distance(c, t)} ft]", "target", (t.cid,))
            for t in b.save_targets(c, spec)]


def _save_action_target(b, c: Combatant, use: tuple, t: Combatant) -> None:
    spec = monster_action(c, use[1])
    hits = [t]
    if spec.target_filter and spec.targets is None:   # every qualifying creature
        hits = b.save_targets(c, spec)
    b._monster_save(c, use[1], hits, legendary=use[2:3] == ("legendary",), queued=use[2:3] == ("queue",))


TARGET_USES.register("monster_heal", TargetUse(_healing_touch_targets, _healing_touch_target))
TARGET_USES.register("save_action", TargetUse(_save_action_targets, _save_action_target))
