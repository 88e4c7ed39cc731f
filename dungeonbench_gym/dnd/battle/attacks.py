"""Attacks: modifiers, the roll, reactions to a hit (Shield, Parry, Uncanny Dodge, opportunity
attacks), what a hit does, shoving and grappling checks.

Part of :class:`~dungeonbench_gym.dnd.engine.Battle`.
"""

from __future__ import annotations

from .. import (
    content, items as _items, spell_buffs,
    spell_wards, spell_zones, spellbook,
)
from ..classes import dispatch
from ..monster_traits import dispatch as monster_traits   # monsters' own traits (one module per trait family)
from ..grid import SQUARE_FT, footprint
from ..model.options import Opt
from ..model.slots import spend_slot
from ..rules.conditions import AUTO_CRIT
from ..rules.hooks import OPTION_KINDS, REACTIONS, TARGET_USES, Reaction, TargetUse
from ..state import SIZES, AttackProfile, Combatant, DamagePart
from ..rules import spell_data


class AttacksMixin:
    """Making an attack and landing it."""

    def _resolve_reaction(self, reactor: Combatant, p: dict, take: bool) -> None:
        if p.get("reaction") in ("shield", "uncanny_dodge", "parry"):
            st, self.attack_state = self.attack_state, None
            if take and p["reaction"] == "shield":
                self._cast_shield(reactor)
                st = dict(st, ac=st["ac"] + 5, hit=st["total"] >= st["ac"] + 5)
            elif take and p["reaction"] == "parry":   # +AC against this one attack only
                reactor.economy.reaction = False
                bonus = reactor.resources["parry"]
                self.event("reaction", f"{reactor.cid} parries (+{bonus} AC)", creature=reactor.cid)
                st = dict(st, ac=st["ac"] + bonus, hit=st["total"] >= st["ac"] + bonus)
            elif take:
                reactor.economy.reaction = False
                self.event("reaction", f"{reactor.cid} uses Uncanny Dodge: half damage", creature=reactor.cid)
                st = dict(st, halve=True)
            if self.land(st) is None:
                return   # the attacker decides on a rider first (Divine Smite)
            if self.check_outcome():
                return
            self.after_attack(st["then"], self.creatures[st["attacker"]])
            return
        mover = self.creatures[p["mover"]]
        if take:
            if p.get("reaction") != "readied" and reactor.resources.get("oa_extra", 0) > 0:
                reactor.resources["oa_extra"] -= 1   # Reactive Heads: one for opportunity attacks only
            else:
                reactor.economy.reaction = False
            what = "its readied attack" if p.get("reaction") == "readied" else "an opportunity attack"
            reactor.conditions.pop("readied", None)
            self.event("reaction", f"{reactor.cid} makes {what} on {mover.cid}",
                       creature=reactor.cid, target=mover.cid)
            if self.make_attack(reactor, reactor.attack(p["attack"]), mover, melee=True, then="move") is None:
                return   # the mover reacts first (Shield)
        if self.check_outcome():
            return
        self._continue_move()

    def after_attack(self, then: str, attacker: Combatant) -> None:
        """Carry on after an attack that waited for a reaction."""
        if then == "move":
            self._continue_move()
        elif then == "menu":
            self.back_to_menu(self.active)
        elif then == "next_turn":   # a legendary attack, between turns
            self.next_turn()

    # ---------------------------------------------------------------- attacks
    def attack_modifiers(self, c: Combatant, t: Combatant, melee: bool, a: AttackProfile | None = None):
        """(advantage, disadvantage, reasons) for c attacking t (SRD conditions, Dodge, Help, range)."""
        adv, dis = [], []
        dist = self.distance(c, t)
        for k in ("prone", "restrained", "blinded", "poisoned"):
            if k in c.conditions:
                dis.append(f"attacker {k}")
        if "frightened" in c.conditions and self.fear_in_sight(c):
            dis.append("attacker frightened")
        if c.exhaustion >= 3:
            dis.append("attacker exhausted")
        if c.squeezing:   # SRD Squeezing into a Smaller Space
            dis.append("attacker squeezing")
        if t.squeezing:
            adv.append("target squeezing")
        if "invisible" in c.conditions and not spell_data.sees_invisible(t, dist):   # See Invisibility, blindsight
            adv.append("attacker invisible")
        if "hidden" in c.conditions:   # an unseen attacker
            adv.append("attacker hidden")
        if "hidden" in t.conditions:   # guessing where it is
            dis.append("target hidden")
        if "invisible" in t.conditions and not spell_data.sees_invisible(c, dist):
            dis.append("target invisible")
        if "prone" in t.conditions:
            (adv if dist <= SQUARE_FT else dis).append("target prone")
        for k in ("restrained", "blinded", "paralyzed", "petrified", "stunned"):
            if k in t.conditions:
                adv.append(f"target {k}")
        if not t.conscious or "unconscious" in t.conditions:
            adv.append("target unconscious")
        if "guided" in t.conditions:
            adv.append("guided")
        chill = c.conditions.get("chilled")
        if chill and chill.get("undead") and chill["by"] == t.cid:
            dis.append("chilled")
        if a is not None and a.heavy and c.size == "small":
            dis.append("heavy weapon, Small attacker")
        if a is not None and a.key == "shocking-grasp" and t.metal_armor:
            adv.append("metal armour")
        if t.dodging and self.dodge_holds(t) and "hidden" not in c.conditions and self.watches(t, c):
            dis.append("target dodging")   # SRD Dodge: against an attacker the dodger can see
        helped = t.conditions.get("helped")
        if helped and helped["by"] != c.cid and self.creatures[helped["by"]].side == c.side:
            adv.append("helped")   # SRD Help: an ally's attack, not the helper's own
        for k, v in sorted(t.conditions.items()):   # spellbook flags: Faerie Fire, Blur
            if v.get("attacked_adv") or (v.get("attacked_adv_by_caster") and v.get("by") == c.cid):
                adv.append(f"target {k}")
            if v.get("attacked_dis") or c.creature_type in v.get("attacked_dis_types", ()):
                dis.append(f"target {k}")
        dis.extend(f"attacker {k}" for k, v in sorted(c.conditions.items()) if v.get("attack_dis"))
        adv.extend(spell_buffs.attack_adv(c))   # Foresight
        if "breath_weakened" in c.conditions and melee and a is not None and not a.finesse and not a.spell:
            dis.append("weakened (Strength attack)")   # Weakening Breath: Str-based attack rolls
        if "reckless" in c.conditions and melee and "reckless" in c.features:
            adv.append("reckless")   # a monster's Reckless (a barbarian's: classes/barbarian, Str attacks only)
        if "assassinate" in c.features and self.round == 1 and t.cid in self.order \
                and self.order.index(t.cid) > self.turn_index:   # Assassinate: it has not taken a turn yet
            adv.append("assassinate")
        if "reckless" in t.conditions:
            adv.append("target reckless")
        if "pack_tactics" in c.features and any(
                o is not c and o.conscious and not o.incapacitated and self.distance(o, t) <= SQUARE_FT
                for o in self.allies_of(c)):
            adv.append("pack tactics")
        if "blood_frenzy" in c.features and melee and t.hp < t.max_hp:
            adv.append("blood frenzy")
        if "grappler" in c.features and t.conditions.get("grappled", {}).get("by") == c.cid:
            adv.append("grappler")   # a mimic against the creature it holds
        if not melee:
            if a is not None and a.range_normal and dist > a.range_normal:
                dis.append("long range")
            if any(o.conscious and not o.incapacitated and self.distance(c, o) <= SQUARE_FT and self.watches(o, c)
                   for o in self.enemies_of(c)):   # SRD: a hostile creature next to it that can see it
                dis.append("hostile within 5 ft")
        dispatch.attack_modifiers(self, c, t, melee, a, adv, dis)   # Reckless Attack, Elusive
        if self.zones:   # Darkness, Fog Cloud...: unseen attackers and targets (dnd/spell_zones.py)
            spell_zones.sight_modifiers(self, c, t, adv, dis)
        if self.wards:   # a target inside a Magic Circle against the attacker's type (dnd/spell_wards.py)
            spell_wards.attack_modifiers(self, c, t, dis)
        if a is not None and getattr(self, "underwater", False):   # SRD underwater combat (dnd/items.py)
            dis.extend(_items.underwater_disadvantage(c, a, melee))
        dispatch.last_modifiers(self, c, t, adv, dis)   # Feral Senses, Elusive
        return bool(adv), bool(dis), adv + dis

    def make_attack(self, c: Combatant, a: AttackProfile, t: Combatant, melee: bool | None = None,
                    then: str = "none") -> bool | None:
        """Roll one attack with all its consequences; True on a hit, False on a miss, None when
        the target gets a reaction decision first (Shield): the attack then finishes in
        :meth:`_resolve_reaction` and continues with ``then`` ("menu", "move" or "none")."""
        if melee is None:
            melee = self.attack_range(c, a, t) == "melee"
        a = spellbook.weapon_form(c, a)   # Shillelagh
        c.conditions.pop("sanctuary", None)   # the ward ends when the warded creature attacks
        vanished = [k for k, v in c.conditions.items() if v.get("ends_on_attack")]   # Invisibility
        for k in vanished:
            del c.conditions[k]
        hidden = c.conditions.pop("hidden", None)   # attacking reveals the attacker (after this roll)
        if t.is_pc and "natures_sanctuary" in t.features and dispatch.sanctuary_turns(self, c, t, a):
            return False   # Nature's Sanctuary: a beast or plant that fails its save loses the attack
        ward = t.conditions.get("sanctuary")
        if ward and not self.saving_throw(c, "wis", ward["dc"], magic=True):
            # simplification: the attack is lost (the SRD also allows picking another target)
            self.event("attack", f"{c.cid}'s attack on {t.cid} is turned aside by sanctuary", attacker=c.cid,
                       target=t.cid, attack=a.key, hit=False, critical=False, total=0, ac=0)
            return False
        if a.ammo and not melee:   # SRD ammunition: each attack expends one piece
            c.resources[a.ammo] = max(0, c.resources.get(a.ammo, 0) - 1)
        if "ms" in t.resources and a.spell and not melee:   # a tarrasque's Reflective Carapace
            handled, result = monster_traits.carapace_attack(self, c, a, t, then)
            if handled:
                return result
        if spellbook.images_take(self, c, t, a):   # Mirror Image: a duplicate takes the attack
            return False
        adv, dis, reasons = self.attack_modifiers(c, t, melee, a)
        if t.is_pc and dispatch.defend(self, c, t, melee, then, reasons):   # Protection, Escape the Horde
            dis = True
        if "invisible" in vanished:   # the attack that ends invisibility is still made unseen
            adv, reasons = True, [*reasons, "attacker invisible"]
        if hidden is not None:   # this attack still has the unseen attacker's advantage
            adv, reasons = True, [*reasons, "attacker hidden"]
        if adv and t.is_pc:   # Elusive holds against an unseen attacker's advantage too
            left = ["unseen attacker"]
            dispatch.last_modifiers(self, c, t, left, [])
            adv = bool(left)
        if "helped" in reasons:
            del t.conditions["helped"]   # Help grants the first attack only
        if "guided" in reasons:
            del t.conditions["guided"]   # Guiding Bolt: the next attack roll only
        cover = self.cover(c, t)
        ac = self.armour_class(t) + (cover.bonus or 0)
        if "amulet_of" in t.resources:   # a shield guardian's Shield reaction for its amulet's wearer
            ac += monster_traits.guardian_shield(self, c, t)
        bonus = a.to_hit + dispatch.attack_bonus(self, c, t, a)   # Sacred Weapon; notes the attack (Rage)
        bonus += spellbook.attack_bonus(c, a)   # Magic Weapon
        bonus -= spell_buffs.attack_penalty(c)   # Raise Dead's -4
        if "blessed" in c.conditions:   # Bless +1d4, Bane -1d4 on attack rolls
            bonus += self.roller.roll("1d4", what=f"bless {c.cid}")
        bonus += self._leadership_die(c)   # a knight's Leadership
        if "baned" in c.conditions:
            bonus -= self.roller.roll("1d4", what=f"bane {c.cid}")
        roll = self.roller.roll_d20(adv, dis, bonus=bonus, what=f"attack {c.cid}->{t.cid} {a.key}")
        crit = roll.natural >= dispatch.crit_min(c)   # 20, or 19-20 / 18-20 (Champion)
        hit = crit or (roll.natural != 1 and roll.total >= ac)
        total = roll.total
        if not hit and c.is_pc:   # Bardic Inspiration, Stroke of Luck
            total, hit = dispatch.rescue_attack(self, c, total, ac, roll.natural)
        # SRD: any hit on an unconscious or paralyzed creature from within 5 ft is a critical hit
        if hit and (not t.conscious or any(k in t.conditions for k in AUTO_CRIT)) \
                and self.distance(c, t) <= SQUARE_FT:
            crit = True
        state = {"attacker": c.cid, "target": t.cid, "attack": a, "melee": melee, "hit": hit, "crit": crit,
                 "adv": adv, "dis": dis, "total": total, "ac": ac, "mode": roll.advantage, "then": then}
        reaction = None
        if hit and not crit and total < ac + 5 and self._can_shield(t):
            reaction = "shield"
        elif hit and "uncanny_dodge" in t.features and not t.incapacitated and t.economy.reaction \
                and self.watches(t, c) and hidden is None and "invisible" not in vanished:
            # SRD Uncanny Dodge: only against an attacker it can see (an unseen one, invisible or
            # hidden until this attack, gives no warning)
            reaction = "uncanny_dodge"
        elif hit and melee and not crit and "parry" in t.features and not t.incapacitated and t.economy.reaction \
                and roll.total < ac + t.resources["parry"] \
                and self.watches(t, c):   # SRD Parry: it must see the attacker (light, fog, invisibility)
            reaction = "parry"
        elif hit and dispatch.can_deflect(self, t, a, melee):
            reaction = "deflect_missiles"
        elif hit and not crit and dispatch.cutting_words(self, c, t, state):   # a bard ally's reaction
            reaction = "cutting_words"
        if reaction:
            self.attack_state = state
            self.pending = {"kind": "reaction", "actor": state.get("reactor", t.cid), "reaction": reaction,
                            "attacker": c.cid, "prompt": state.get("reactor_prompt")}
            self._cache = None
            return None
        if hit and a.key == "rock" and "rock_catching" in t.features and t.economy.reaction and not t.incapacitated:
            t.economy.reaction = False   # Rock Catching (always worth it, so taken without a decision)
            caught = self.saving_throw(t, "dex", 10)
            self.event("rock_catching", f"{t.cid} {'catches' if caught else 'fails to catch'} the rock",
                       creature=t.cid, success=caught)
            if caught:   # no damage from it
                self.event("attack", f"{c.cid}'s rock is caught by {t.cid}", attacker=c.cid, target=t.cid,
                           attack=a.key, total=total, ac=ac, hit=False, critical=False)
                return False
        before = t.hp + t.temp_hp
        out = self.land(state)
        if out and "hellish-rebuke" in t.spells and spell_buffs.offer_rebuke(self, c, t, then, before):
            return None   # the damaged creature decides on Hellish Rebuke first
        if (c.is_pc or t.is_pc) and dispatch.after_attack(self, c, t, a, melee, out, then, before):
            return None   # Retaliation, Giant Killer, Stand Against the Tide, Hurl Through Hell
        return out

    def armour_class(self, t: Combatant) -> int:
        """AC with the spells up on it: Shield +5, Shield of Faith +2."""
        base = max(t.ac, 13 + t.dex_mod) if "mage_armor" in t.conditions else t.ac
        base = max([base] + [v["ac_min"] for v in t.conditions.values() if "ac_min" in v])   # Barkskin
        base += sum(v.get("ac", 0) for v in t.conditions.values())   # spellbook flags: Haste +2, Slow -2
        return base + (5 if "shield" in t.conditions else 0) + (2 if "shield_of_faith" in t.conditions else 0)

    def _can_shield(self, t: Combatant) -> bool:
        return ("shield" in t.spells and not t.incapacitated and t.economy.reaction and "shield" not in t.conditions
                and (any(t.resources.get("slots", ())) or t.resources.get("innate", {}).get("shield", 0) != 0))

    def land(self, st: dict) -> bool:
        """The rest of an attack once the roll stands: the event, damage, on-hit effects."""
        c, t, a = self.creatures[st["attacker"]], self.creatures[st["target"]], st["attack"]
        hit, crit = st["hit"], st["crit"]
        mode = st["mode"]
        if not st.get("rider_done"):   # logged once, not again when a rider decision resumes it
            self.event("attack", f"{c.cid} {'crits' if crit else ('hits' if hit else 'misses')} {t.cid} with "
                       f"{a.key} ({st['total']} vs AC {st['ac']}{', ' + mode if mode != 'none' else ''})",
                       attacker=c.cid, target=t.cid, attack=a.key, total=st["total"], ac=st["ac"], hit=hit,
                       critical=crit)
        if not hit:
            return False
        if not st.get("rider_done") and dispatch.rider_options(self, c, t, st):
            # Divine Smite / Stunning Strike / Open Hand: the attacker decides before the damage
            self.attack_state = st
            self.pending = {"kind": "reaction", "actor": c.cid, "reaction": "rider", "attacker": c.cid,
                            "prompt": f"{c.cid}: you hit {t.cid}; add a rider?"}
            self._cache = None
            return None
        melee = st["melee"]
        parts = list(a.damage)
        if melee and "eminence" in c.conditions:   # a priest's Divine Eminence
            parts.append(DamagePart(c.conditions["eminence"]["dice"], "radiant"))
        weak = c.resources.get("swarm_half_hp", {}).get(a.key)
        if weak and c.hp <= c.max_hp // 2:   # a swarm at half its hit points or fewer: the lesser dice
            parts = [DamagePart(d, ty) for d, ty in weak]
        # once per turn, any creature's turn: the economy's mark names the turn it was spent in
        # (an opportunity attack on a foe's turn may add it again)
        if "sneak_attack" in c.features and c.economy.sneak_used != self.turn_mark() \
                and (c.kind == "monster" or (dispatch.is_weapon(a) and (a.finesse or not melee))) \
                and self.sneak_attack_allowed(c, t, st["adv"], st["dis"]):   # a monster's: any attack
            # (a PC's: a finesse or ranged weapon, a magic one too; not a ranged spell attack)
            c.economy.sneak_used = self.turn_mark()
            parts.append(DamagePart(c.resources["sneak_attack_dice"], parts[0].type))
            self.event("sneak_attack", f"{c.cid} adds Sneak Attack ({c.resources['sneak_attack_dice']})",
                       creature=c.cid)
        parts += [DamagePart(d, ty) for d, ty, types in c.resources.get("slaying", {}).get(a.key, ())
                  if t.creature_type in types]   # a slayer weapon's extra damage (dnd/items.py)
        parts += spellbook.hit_parts(self, c, t, a)   # Divine Favor, Branding Smite, Hunter's Mark
        if parts and "martial_advantage" in c.features and c.economy.sneak_used != self.turn_mark() and any(
                o.conscious and not o.incapacitated and o is not c and self.distance(o, t) <= SQUARE_FT
                for o in self.allies_of(c)):   # Martial Advantage: once a turn, an ally next to the target
            c.economy.sneak_used = self.turn_mark()
            parts.append(DamagePart(c.resources["martial_advantage_dice"], parts[0].type))
            self.event("martial_advantage", f"{c.cid} adds Martial Advantage", creature=c.cid)
        charge = self._charge_hit(c, t, a) if c.kind == "monster" else None
        if charge:   # a monster's Charge: the trait's extra dice (of the attack's type when unnamed)
            parts += [DamagePart(d["dice"], d["type"] or parts[0].type) for d in charge.get("extra_damage", ())]
        # class features: rage, smite, Colossus Slayer, Brutal Critical (not doubled), ...
        odd = 0   # Uncanny Dodge halves the attack's whole damage: the parts' odd points are pooled
        for part, doubles in dispatch.damage_parts(self, c, t, a, st, parts):
            amount = dispatch.roll_damage(self, c, a, part.dice, crit and doubles,
                                          f"damage {a.key} {part.type}")   # Great Weapon Fighting
            if st.get("halve"):   # Uncanny Dodge (rounded down once, not once a part)
                odd += amount % 2
                amount = amount // 2 + odd // 2
                odd %= 2
            amount = dispatch.reduce_damage(st, amount)   # Deflect Missiles
            if c.conditions:   # Ray of Enfeeblement
                amount = spell_buffs.weakened(c, a, melee, amount)
            self.damage(t, amount, part.type, magical=a.spell or (c.is_pc and dispatch.weapon_magical(c, a)),
                        critical=crit, source=c.cid)   # (a magic weapon, Sacred Weapon's)
        if t.conscious:
            for effect in a.on_hit:
                self._on_hit(c, t, effect)
        if charge and charge.get("save") and not t.dead:
            self._charge_save(c, t, charge)
        if "rampage" in c.resources and melee and t.hp == 0 and self.active is c and c.economy.bonus:
            c.resources["rampage_ready"] = True   # Rampage: it dropped a creature in melee on its turn
        if "heated_body" in t.resources and melee and not c.dead and self.distance(c, t) <= SQUARE_FT:
            for dice, dtype in t.resources["heated_body"]:   # Heated Body burns the attacker
                self.damage(c, self.roller.roll_damage(dice, what=f"heated body {t.cid}"), dtype, magical=True,
                            source=t.cid)
        if melee:
            spellbook.retort(self, c, t)   # Fire Shield
        if "ms" in t.resources or "ms" in c.resources:   # Rust Metal, Corrosive Form, a burning touch
            monster_traits.after_hit(self, c, t, a, melee)
        dispatch.after_hit(self, c, t, st)   # Stunning Strike's save, Open Hand
        return True

    def _touch_heal_targets(self, c: Combatant) -> list[Combatant]:
        """Healing Touch: another hurt, living creature of its side within 5 ft."""
        return [o for o in self.allies_of(c) if o.hp < o.max_hp and self.distance(c, o) <= SQUARE_FT]

    @staticmethod
    def _sure_footed(t: Combatant, ability: str, conditions) -> bool:
        """Sure-Footed: advantage on Str and Dex saves against being knocked prone."""
        return "sure_footed" in t.features and ability in ("str", "dex") and "prone" in conditions

    def _ally_ward(self, t: Combatant, cond: str) -> bool:
        """Steadfast: the condition cannot take hold while t sees an ally within the ward's range
        (not blinded, the ally visible and not behind total cover)."""
        ward = t.resources.get("ally_ward")
        return bool(ward) and cond in ward["conditions"] and "blinded" not in t.conditions and any(
            self.distance(t, o) <= ward["feet"] and "invisible" not in o.conditions
            and self.line_of_effect(t, o) for o in self.allies_of(t))

    def _monster_auras(self, c: Combatant) -> None:
        """Start of c's turn: the Stench and Petrifying Gaze of foes around it (a gaze needs the
        two to see each other: no total cover, c not blinded, the gazer not invisible)."""
        for o in sorted(self.enemies_of(c), key=lambda o: o.cid):
            if not c.conscious:
                return
            if o.incapacitated:
                continue
            for res, cond in (("stench", "poisoned"), ("fear_aura", "frightened")):   # Stench, Fear Aura
                aura, tag = o.resources.get(res), f"{o.cid}:{res}"
                if not aura or self.distance(o, c) > aura["radius"] or tag in c.resources.get("immune_to", ()):
                    continue
                if self.saving_throw(c, aura["ability"], aura["dc"], condition=cond):   # a success: immune 24 hours
                    c.resources["immune_to"] = tuple(c.resources.get("immune_to", ())) + (tag,)
                elif cond not in c.condition_immunities and not self._ally_ward(c, cond):   # until its next turn
                    c.conditions[cond] = {"by": o.cid, "until_round": self.round + 1}
                    self.event("condition", f"{c.cid} is {cond} by {o.cid}'s {res.replace('_', ' ')}",
                               creature=c.cid, condition=cond)
            mask = o.resources.get("unnerving_mask")   # a chain devil's reaction (always worth it: no decision)
            if mask and o.economy.reaction and self.distance(o, c) <= mask["radius"] \
                    and "blinded" not in c.conditions and "blinded" not in o.conditions \
                    and "invisible" not in o.conditions and self.line_of_effect(o, c) \
                    and "frightened" not in c.conditions and "frightened" not in c.condition_immunities:
                o.economy.reaction = False
                self.event("unnerving_mask", f"{o.cid} shows {c.cid} an unnerving mask", creature=o.cid, target=c.cid)
                if not self.saving_throw(c, "wis", mask["dc"], condition="frightened"):
                    self.save_condition(o, c, "frightened", "wis", mask["dc"], (None, "end_of_target_next_turn", None))
                    if "frightened" in c.conditions:   # until the end of this turn
                        c.conditions["frightened"]["turn_of"] = None
            gaze = o.resources.get("gaze")
            if gaze and self.distance(o, c) <= gaze["radius"] and "petrified" not in c.conditions \
                    and "blinded" not in c.conditions and "invisible" not in o.conditions \
                    and self.line_of_effect(o, c) and not c.conditions.get("restrained", {}).get("petrify"):
                roll_dc = gaze["dc"]
                if self.saving_throw(c, "con", roll_dc):
                    continue
                total = next((e["total"] for e in reversed(self.log)   # the save's roll, for the medusa
                              if str(e.get("what", "")).startswith(f"save {c.cid} con")), roll_dc)
                by = gaze.get("petrified_if_failed_by")
                if by and total <= roll_dc - by:
                    self._petrify(c, o)
                elif "restrained" not in c.condition_immunities:
                    c.conditions["restrained"] = {"by": o.cid, "petrify": True, "dc": roll_dc, "round": self.round}
                    self.event("condition", f"{c.cid} begins to turn to stone", creature=c.cid, condition="restrained")

    def _petrify(self, c: Combatant, by: Combatant) -> None:
        if "petrified" in c.condition_immunities:
            return
        c.conditions.pop("restrained", None)
        c.conditions["petrified"] = {"by": by.cid}
        self.end_concentration(c)
        self.release_grapples_by(c)
        self.event("condition", f"{c.cid} is petrified", creature=c.cid, condition="petrified")

    def _death_burst(self, t: Combatant) -> None:
        """Death Burst: on death, a save for each creature within the radius (damage rolled once,
        half on a success where the stat block says so; or a condition)."""
        burst = t.resources["death_burst"]
        self.event("death_burst", f"{t.cid} bursts", creature=t.cid)
        rolled = [(ty, self.roller.roll_damage(d, what=f"damage death burst {ty}")) for d, ty in burst["damage"]]
        for o in sorted(self.creatures.values(), key=lambda o: o.cid):
            if o is t or o.dead or self.distance(t, o) > burst["radius"]:
                continue
            ok = self.saving_throw(o, burst["ability"], burst["dc"], origin=t)   # (a Dex save's cover)
            for ty, amount in rolled:
                self.damage(o, dispatch.area_damage(o, burst["ability"], ok, bool(burst.get("half_on_success")),
                                                    amount), ty,   # (Evasion)
                            magical=True, source=t.cid)
            if not ok:
                dur = (burst.get("rounds"), None, "end_of_turn" if burst.get("repeat_save") else None, False, ())
                for cond in burst.get("conditions", ()):
                    self.save_condition(t, o, cond, burst["ability"], burst["dc"], dur)

    def _charge_hit(self, c: Combatant, t: Combatant, a: AttackProfile) -> dict | None:
        """Charge, Pounce, Trampling Charge: the stat block's attack hits after the creature moved
        at least the trait's distance straight toward the target this turn (simplified: a run this
        turn of that length that brought it that much closer to the target). Once per run."""
        charge, run = c.resources.get("charge"), c.resources.get("charge_run")
        if not charge or not run or a.key != charge["attack"] or run["round"] != self.round \
                or self.active is not c:
            return None
        need = charge["min_distance"]
        if run["ft"] < need or self.distance_from(c, run["from"], t) - self.distance(c, t) < need:
            return None
        del c.resources["charge_run"]
        self.event("charge", f"{c.cid} charges {t.cid}", creature=c.cid, target=t.cid)
        return charge

    def _charge_save(self, c: Combatant, t: Combatant, charge: dict) -> None:
        sv = charge["save"]
        if self.saving_throw(t, sv["ability"], sv["dc"],
                             adv=self._sure_footed(t, sv["ability"], charge.get("on_fail", ())),
                             condition=charge.get("on_fail", ())):
            return
        for _ in range(charge.get("push", 0) // SQUARE_FT):   # the minotaur's gore: pushed away first
            dest = self._push_square(c, t)
            if dest is None:
                break
            t.pos = dest
        for cond in charge.get("on_fail", ()):
            self.save_condition(c, t, cond, sv["ability"], sv["dc"], ())
        if charge.get("bonus_attack") and "prone" in t.conditions and c.economy.bonus:
            c.resources["pounce_on"] = t.cid   # a bonus-action attack against the prone target

    def _cast_shield(self, t: Combatant) -> None:
        slots = list(t.resources.get("slots", ()))
        innate = t.resources.get("innate", {})
        if not any(slots):   # a monster's innate Shield: a use per day (-1: at will)
            level = 1
            innate["shield"] -= 1 if innate["shield"] > 0 else 0
        else:
            level = next(i for i, n in enumerate(slots) if n) + 1   # the lowest slot left
            spend_slot(t, level)
        t.economy.reaction = False
        t.conditions["shield"] = {"until": "start_of_turn"}
        self.event("cast", f"{t.cid} casts shield (+5 AC until its next turn)", creature=t.cid,
                   spell="shield", level=level)

    def sneak_attack_allowed(self, c: Combatant, t: Combatant, adv: bool, dis: bool) -> bool:
        """SRD: advantage on the roll, or another enemy of the target within 5 ft of it (not
        incapacitated) and no disadvantage."""
        if dis and not adv:
            return False
        if adv and not dis:
            return True
        # neither, or both cancelled: the roll then has no disadvantage (SRD "Advantage and
        # Disadvantage"), so an ally beside the target opens Sneak Attack as on a plain roll
        return any(o.conscious and not o.incapacitated and o.side == c.side and o is not c
                   and self.distance(o, t) <= SQUARE_FT for o in self.creatures.values())

    # ---------------------------------------------------------------- shoving and grappling
    def medicine(self, c: Combatant) -> int:
        """The Wisdom (Medicine) bonus of c (our PC builds train no one in Medicine)."""
        if c.is_pc:
            return c.mod("wis") + dispatch.check_bonus(c, "wis")
        return self._skill(c, "medicine", "wis")

    def athletics(self, c: Combatant) -> int:
        if c.is_pc:   # our builds: fighters are trained in Athletics
            return c.mod("str") + (c.prof if c.pc_class == "fighter" else dispatch.check_bonus(c, "str"))
        return self._skill(c, "athletics", "str")

    def fear_in_sight(self, c: Combatant) -> bool:
        """SRD Frightened: the source of c's fear lives and is within its line of sight (the
        disadvantage on attack rolls and ability checks holds only then)."""
        src = self.creatures.get(c.conditions.get("frightened", {}).get("by"))
        return src is not None and not src.dead and \
            self.map.can_see(c.cells, src.cells, viewer_z=c.pos[2], target_z=src.pos[2])

    def check_dis(self, c: Combatant) -> bool:
        """Disadvantage on ability checks (SRD appendix A): exhaustion 1 or more, poisoned,
        frightened with the source in sight; a lamia's curse and the like (a ``check_dis`` flag)."""
        if not c.conditions:
            return False
        return c.exhaustion >= 1 or "poisoned" in c.conditions or \
            ("frightened" in c.conditions and self.fear_in_sight(c)) or \
            any(v.get("check_dis") for v in c.conditions.values())

    def check_roll(self, c: Combatant, ability: str, bonus: int, what: str, trained: bool = False):
        """One ability check of c (a D20Roll): advantage from features (Rage: Strength),
        disadvantage (:meth:`check_dis`), and the total's floors (Reliable Talent when ``trained``,
        Indomitable Might). Every check a rule rolls comes through here, so these features reach
        shoves, grapples, escapes and bursting free alike."""
        roll = self.roller.roll_d20(dispatch.check_advantage(c, ability), self.check_dis(c), bonus=bonus, what=what)
        return roll._replace(total=dispatch.check_total(c, ability, roll.natural, roll.total, trained))

    def escape_ability(self, t: Combatant) -> tuple[str, bool]:
        """(ability, trained) of the better of t's Athletics and Acrobatics (:meth:`_escape_bonus`)."""
        if t.is_pc:
            acro = t.mod("dex") + (t.prof if t.pc_class == "rogue" else dispatch.check_bonus(t, "dex"))
            return ("str", t.pc_class == "fighter") if self.athletics(t) >= acro else ("dex", t.pc_class == "rogue")
        return ("str", False) if self._skill(t, "athletics", "str") >= self._skill(t, "acrobatics", "dex") \
            else ("dex", False)

    def _escape_bonus(self, t: Combatant) -> int:
        """The better of Athletics and Acrobatics (resisting a shove, escaping a grapple)."""
        if t.is_pc:
            return max(self.athletics(t), t.mod("dex") + (t.prof if t.pc_class == "rogue" else
                                                           dispatch.check_bonus(t, "dex")))
        return max(self._skill(t, "athletics", "str"), self._skill(t, "acrobatics", "dex"))

    @staticmethod
    def _skill(c: Combatant, skill: str, ability: str) -> int:
        return content.monster(c.monster).skills.get(skill, c.mod(ability))

    def _push_square(self, c: Combatant, t: Combatant):
        """The position 5 ft straight away from the shover, if the target fits there."""
        cx, cy = c.pos[0] * 2 + c.squares, c.pos[1] * 2 + c.squares
        tx, ty = t.pos[0] * 2 + t.squares, t.pos[1] * 2 + t.squares
        dx, dy = (tx > cx) - (tx < cx), (ty > cy) - (ty < cy)
        x, y = t.pos[0] + dx, t.pos[1] + dy
        if not self.map.fits(x, y, t.squares):
            return None
        taken = {cell for o in self.creatures.values() if not o.dead and o is not t for cell in o.cells}
        if any(cell in taken for cell in footprint(x, y, t.squares)):
            return None
        return (x, y, self.map.standing_z(x, y, t.squares))

    def push(self, c: Combatant, t: Combatant, feet: int) -> int:
        """Forced movement straight away from ``c``, 5 ft at a time while the target fits: no
        opportunity attacks, a grapple on it ends, hazards on the way bite. Returns the feet moved."""
        moved = 0
        for _ in range(feet // SQUARE_FT):
            to = self._push_square(c, t)
            if to is None:
                break
            t.pos, moved = to, moved + SQUARE_FT
            self.release(t)
            self.enter_hazards(t, t.pos)
        return moved

    def _shove_targets(self, c: Combatant, mode: str) -> list[Combatant]:
        out = []
        for t in self.enemies_of(c):
            if self.distance(c, t) > SQUARE_FT or SIZES.index(t.size) > SIZES.index(c.size) + 1 \
                    or self.inside_apart(c, t):   # swallowed, or enclosed (Forcecage, Resilient Sphere)
                continue
            if mode == "prone" and "prone" in t.conditions:
                continue
            if mode == "push" and self._push_square(c, t) is None:
                continue
            if mode == "grapple" and ("grappled" in t.conditions or "grappled" in t.condition_immunities):
                continue
            out.append(t)
        return out

    def _shove(self, c: Combatant, t: Combatant, mode: str) -> None:
        mine = self.check_roll(c, "str", self.athletics(c) + spell_buffs.check_die(self, c), f"shove {c.cid}",
                               c.pc_class == "fighter")   # Guidance; (Reliable Talent)
        ability, trained = self.escape_ability(t)
        theirs = self.check_roll(t, ability, self._escape_bonus(t) + spell_buffs.check_die(self, t),
                                 f"resist shove {t.cid}", trained)
        mine = mine._replace(total=dispatch.rescue_check(self, c, mine.total, theirs.total + 1))   # (Peerless Skill, Own Luck)
        won = mine.total > theirs.total   # a tie leaves things as they were
        verb = ("grapples" if won else "fails to grapple") if mode == "grapple" else \
            ("shoves" if won else "fails to shove")
        self.event("shove", f"{c.cid} {verb} {t.cid} "
                   f"({mine.total} vs {theirs.total})", creature=c.cid, target=t.cid, success=won)
        if not won:
            return
        if mode == "grapple":   # speed 0 until it escapes or the grappler lets go
            t.conditions["grappled"] = {"by": c.cid, "dc": None}
            self.event("condition", f"{t.cid} is grappled by {c.cid}", creature=t.cid, condition="grappled")
        elif mode == "prone":
            if "prone" not in t.condition_immunities:
                t.conditions["prone"] = {"by": c.cid}
        else:
            t.pos = self._push_square(c, t)   # forced movement provokes no opportunity attack
            self.release(t)
            self.enter_hazards(t, t.pos)

    def _on_hit(self, c: Combatant, t: Combatant, effect: tuple) -> None:
        if effect[0] == "mark":   # a spell's rider on a hit (Guiding Bolt, Ray of Frost, ...)
            for name in effect[1:]:
                t.conditions[name] = {"by": c.cid, "round": self.round, "undead": t.creature_type == "undead"}
            if "no_reactions" in effect:   # Shocking Grasp: until the start of its next turn
                t.conditions.pop("no_reactions")
                t.economy.reaction = False
            return
        if effect[0] == "webbed":   # restrained by webbing until an ability check bursts it
            _, ability, dc, size_max = effect
            if "restrained" not in t.condition_immunities and \
                    (size_max is None or SIZES.index(t.size) <= SIZES.index(size_max)):
                t.conditions["restrained"] = {"by": c.cid, "escape": (ability, dc)}
                self.event("condition", f"{t.cid} is restrained by webbing", creature=t.cid, condition="restrained")
            return
        if effect[0] == "save":
            _, ability, dc, conditions, damage, half = effect[:6]
            dur = effect[6] if len(effect) > 6 else None
            if dur and t.creature_type in dur[4]:   # a ghoul's claws: elves and undead are immune
                conditions = ()
                if not damage:
                    return
            ok = self.saving_throw(t, ability, dc, adv=self._sure_footed(t, ability, conditions), condition=conditions)
            for part in damage:
                amount = self.roller.roll_damage(part.dice, what=f"damage {part.type}")
                if ok:
                    amount = amount // 2 if half else 0
                self.damage(t, amount, part.type, source=c.cid)
            if not ok:
                for cond in conditions:
                    if cond not in t.condition_immunities and t.conscious:
                        self.save_condition(c, t, cond, ability, dc, dur)
        elif effect[0] == "grapple":
            _, dc, size_max, restrained = effect
            if "grappled" in t.condition_immunities:
                return
            if size_max and SIZES.index(t.size) > SIZES.index(size_max):
                return
            t.conditions["grappled"] = {"by": c.cid, "dc": dc}
            if restrained:
                t.conditions["restrained"] = {"by": c.cid, "dc": dc}
            self.event("condition", f"{t.cid} is grappled by {c.cid} (escape DC {dc})", creature=t.cid,
                       condition="grappled")
        elif effect[0] == "swallow":
            self._swallow(c, t)
        elif effect[0] == "engulf_hit":
            self._engulf_hit(c, t)
        elif effect[0] == "smother" and t.conditions.get("grappled", {}).get("by") == c.cid:
            t.conditions["blinded"] = {"by": c.cid, "smothered": True}   # and at risk of suffocating
            t.conditions["smothered"] = {"by": c.cid, "dice": effect[1], "type": effect[2]}
            self.event("condition", f"{t.cid} is smothered by {c.cid}", creature=t.cid, condition="smothered")
        elif effect[0] == "curse":   # disadvantage on one save and on ability checks for its duration
            _, name, ability, rounds = effect
            t.conditions[name] = {"by": c.cid, "save_dis": (ability,), "check_dis": True,   # (spellbook.save_mode)
                                  "until_round": self.round + rounds}
            self.event("condition", f"{t.cid} is {name} by {c.cid}", creature=t.cid, condition=name)


@OPTION_KINDS.handles("attack")
def _attack(b, c: Combatant, p: dict, opt: Opt) -> None:
    key, source = opt.data
    b.pending = {"kind": "target", "actor": c.cid, "use": ("attack", key, source)}


@OPTION_KINDS.handles("shove")
def _shove(b, c: Combatant, p: dict, opt: Opt) -> None:
    b.pending = {"kind": "target", "actor": c.cid, "use": ("shove", opt.data[0])}


@OPTION_KINDS.handles("multiattack")
def _multiattack(b, c: Combatant, p: dict, opt: Opt) -> None:
    c.economy.actions -= 1
    c.economy.attack_queue = tuple(c.multiattack)
    count = c.resources.get("multi_count")
    if count:   # a violet fungus's 1d4 touches, a hydra's bite per head
        n = c.resources["heads"] if count.get("per_head") else \
            b.roller.roll(count["dice"], what=f"attacks {c.cid}")
        c.economy.attack_queue = (count["action"],) * max(1, n)
    b.event("multiattack", f"{c.cid} makes a multiattack", creature=c.cid)
    b.back_to_menu(c)


# ==================================================================== the engine's own reactions
def _opportunity_options(b, c: Combatant, p: dict) -> list[Opt]:
    mover = b.creatures[p["mover"]]
    a = c.attack(p["attack"])
    return [Opt(f"Opportunity attack on {mover.cid} with {a.key} ({a.short()})", "reaction", (True,)),
            Opt(f"Let {mover.cid} go", "reaction", (False,))]


def _readied_options(b, c: Combatant, p: dict) -> list[Opt]:
    mover = b.creatures[p["mover"]]
    a = c.attack(p["attack"])
    return [Opt(f"Readied attack on {mover.cid} with {a.key} ({a.short()})", "reaction", (True,)),
            Opt("Hold the readied attack (lost at your turn's start)", "reaction", (False,))]


def _uncanny_dodge_options(b, c: Combatant, p: dict) -> list[Opt]:
    st = b.attack_state
    return [Opt(f"Uncanny Dodge (halve the damage of {p['attacker']}'s {st['attack'].key})", "reaction", (True,)),
            Opt("Take the full hit", "reaction", (False,))]


def _parry_options(b, c: Combatant, p: dict) -> list[Opt]:
    st = b.attack_state
    return [Opt(f"Parry (+{c.resources['parry']} AC: {p['attacker']}'s {st['attack'].key} "
                f"({st['total']} vs AC {st['ac']}) misses)", "reaction", (True,)),
            Opt("Take the hit", "reaction", (False,))]


def _shield_options(b, c: Combatant, p: dict) -> list[Opt]:
    st = b.attack_state
    return [Opt(f"Cast Shield (+5 AC: {p['attacker']}'s {st['attack'].key} ({st['total']} vs AC {st['ac']}) "
                f"misses; uses a spell slot)", "reaction", (True,)),
            Opt("Take the hit", "reaction", (False,))]


def _answer_reaction(b, c: Combatant, p: dict, data: tuple) -> None:
    b._resolve_reaction(c, p, data[0])


def _shield_missile_options(b, c: Combatant, p: dict) -> list[Opt]:
    return [Opt(f"Cast Shield ({p['caster']}'s magic missile deals you no damage; +5 AC; uses a spell slot)",
                "reaction", (True,)),
            Opt("Let the magic missile strike", "reaction", (False,))]


def _answer_shield_missile(b, c: Combatant, p: dict, data: tuple) -> None:
    """SRD Shield, taken when Magic Missile targets c: the dart (and the rest) deal it no damage."""
    if data[0]:
        b._cast_shield(c)
    b._dart(b.creatures[p["caster"]], c, p["left"], p["declined"] + (() if data[0] else (c.cid,)))


REACTIONS.register("shield_missile", Reaction(_shield_missile_options, _answer_shield_missile))


for _name, _options in (("opportunity", _opportunity_options), ("readied", _readied_options),
                        ("uncanny_dodge", _uncanny_dodge_options), ("parry", _parry_options),
                        ("shield", _shield_options)):
    REACTIONS.register(_name, Reaction(_options, _answer_reaction))


# ==================================================================== targets of attacks, shoves and Help
# (rules/hooks.py TARGET_USES: the creatures a pending target decision offers, and what choosing one does)

def _attack_targets(b, c: Combatant, use: tuple) -> list[Opt]:
    a = c.attack(use[1])
    if use[2] == "offhand":
        a = a._replace(damage=a.offhand, range_normal=0, range_long=0)
    targets = b.targets_for_attack(c, a)
    if use[2] == "horde":   # Horde Breaker: a creature near the first target
        targets = dispatch.horde_targets(b, c, targets)
    out = []
    for t in targets:
        if use[2] == "pounce" and t.cid != c.resources.get("pounce_on"):
            continue   # Pounce: the bonus attack is against the creature knocked prone
        how = b.attack_range(c, a, t)
        adv, dis, _ = b.attack_modifiers(c, t, how == "melee", a)
        mode = " with advantage" if adv and not dis else (" with disadvantage" if dis and not adv else "")
        cov = b.cover(c, t)
        cov_note = f", {cov.name.lower().replace('_', '-')} cover" if cov else ""
        out.append(Opt(f"Attack {t.cid} with {a.key} ({a.short()}){mode} "
                       f"[{t.hp}/{t.max_hp} HP, AC {t.ac}{cov_note}, {b.distance(c, t)} ft]",
                       "target", (t.cid,)))
    return out


def _attack_target(b, c: Combatant, use: tuple, t: Combatant) -> None:
    """An attack at the chosen creature, paid from the attack's source (use[2])."""
    e = c.economy
    a = c.attack(use[1])
    if use[2] == "queue":
        e.attack_queue = e.attack_queue[1:]
    elif use[2] == "offhand":
        e.bonus = False
        a = a._replace(damage=a.offhand, range_normal=0, range_long=0)
    elif use[2] in dispatch.BONUS_ATTACKS:   # Martial Arts, Flurry of Blows, Frenzy: paid there
        pass
    elif use[2] == "pounce":   # a monster's Pounce / Trampling Charge: a bonus action
        e.bonus = False
        c.resources.pop("pounce_on", None)
    elif use[2] == "rampage":   # paid with the Rampage bonus action
        c.resources.pop("rampage_bite", None)
    else:
        if e.attacks_left == 0:   # taking the Attack action (Extra Attack: 1-3 more)
            e.actions -= 1
            e.attacks_left = 1 + c.resources.get("extra_attacks", 1) if "extra_attack" in c.features else 1
            e.loading_fired = False
        e.attacks_left -= 1
        if a.offhand and a.melee:
            e.light_attack = a.key
        if a.loading:
            e.loading_fired = True
    if "breath_slowed" in c.conditions:   # its one attack this turn
        c.conditions["breath_slowed"]["attacked"] = (b.round, c.cid)
    if a.key in c.recharge:   # a recharge attack (Web) is spent until it recharges
        c.recharge[a.key] = False
    if c.is_pc:
        dispatch.begin_attack(b, c, a, use[2])
    if use[2] == "legendary":
        if b.make_attack(c, a, t, then="next_turn") is not None and b.outcome is None:
            b.next_turn()
        return
    if b.make_attack(c, a, t, then="menu") is None:
        return   # the target decides on a reaction first
    b.back_to_menu(c)


def _shove_targets(b, c: Combatant, use: tuple) -> list[Opt]:
    what = {"prone": "Shove {} prone", "push": "Shove {} away", "grapple": "Grapple {}"}[use[1]]
    return [Opt(f"{what.format(t.cid)} [contest: your {b.athletics(c):+d} vs its {b._escape_bonus(t):+d}]",
                "target", (t.cid,)) for t in b._shove_targets(c, use[1])]


def _shove_target(b, c: Combatant, use: tuple, t: Combatant) -> None:
    e = c.economy
    if e.attacks_left == 0:   # a shove replaces one attack of the Attack action
        e.actions -= 1
        e.attacks_left = 1 + c.resources.get("extra_attacks", 1) if "extra_attack" in c.features else 1
        e.loading_fired = False
    e.attacks_left -= 1
    b._shove(c, t, use[1])
    b.back_to_menu(c)


def _help_targets(b, c: Combatant, use: tuple) -> list[Opt]:
    return [Opt(f"Help an ally attack {t.cid}", "target", (t.cid,))
            for t in b.enemies_of(c) if b.distance(c, t) <= SQUARE_FT]


def _help_target(b, c: Combatant, use: tuple, t: Combatant) -> None:
    c.economy.actions -= 1
    t.conditions["helped"] = {"by": c.cid}
    b.event("help", f"{c.cid} helps its allies against {t.cid}", creature=c.cid, target=t.cid)
    b.back_to_menu(c)


TARGET_USES.register("attack", TargetUse(_attack_targets, _attack_target))
TARGET_USES.register("shove", TargetUse(_shove_targets, _shove_target))
TARGET_USES.register("help", TargetUse(_help_targets, _help_target))
