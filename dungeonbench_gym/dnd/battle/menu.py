"""The questions a turn asks: the option list and prompt of every pending decision kind, the action
menu.

Part of :class:`~dungeonbench_gym.dnd.engine.Battle`.
"""

from __future__ import annotations

from .. import areas, content
from .. import items as _items
from .. import spell_control, spell_utility, spell_zones, spellbook
from ..classes import dispatch
from ..monster_traits import dispatch as monster_traits   # monsters' own traits (one module per trait family)
from ..grid import SQUARE_FT
from .movement import _route_label
from ..model.options import Opt
from ..rules.hooks import LATER_OPTIONS, REACTIONS
from ..state import Combatant
from ..rules import spell_data


class MenuMixin:
    """Each pending decision's options and prompt; the turn's action menu."""

    # ================================================================ option lists
    def _options(self, p: dict) -> list[Opt]:
        kind = p["kind"]
        c = self.creatures[p["actor"]]
        if kind == "action":
            opts = self.action_options(c)
        elif kind == "target":
            opts = self._target_options(c, p)
        elif kind == "destination":
            opts = self.teleport_options(c, p) if p.get("use") else self.destination_options(c)
        elif kind == "route":
            opts = [Opt(_route_label(i, r), "route", (i,)) for i, r in enumerate(p["routes"])]
        elif kind == "point_x":
            opts = [Opt(f"x = {x}", "point_x", (x,)) for x in self._point_xs(c, p)]
        elif kind == "point_y":
            opts = [Opt(self._area_label(c, p, (p["x"], y)), "point_y", (y,))
                    for y in self._point_ys(c, p, p["x"])]
        elif kind == "point_z":
            ground = areas.ground_z_at_point(self.map, p["x"], p["y"])
            opts = [Opt(self._area_label(c, p, (p["x"], p["y"], z)).replace(
                        "Point", f"Height {z - ground} ft above the ground, point", 1), "point_z", (z,))
                    for z in self._point_heights(c, p["use"], p["x"], p["y"])]
        elif kind == "direction":
            opts = [Opt(self._area_label(c, p, d), "direction", (d,)) for d in areas.DIRECTIONS_8]
        elif kind == "legendary":
            opts = self._legendary_options(c)
        elif kind == "reaction":   # an opportunity attack names no reaction (dnd/rules/hooks.py)
            opts = REACTIONS[p.get("reaction") or "opportunity"].options(self, c, p)
        else:  # pragma: no cover - every pending kind is listed above
            raise RuntimeError(f"unknown decision kind {kind!r}")
        return opts

    def _prompt(self, p: dict) -> str:
        kind, actor = p["kind"], p["actor"]
        if p.get("prompt"):   # a class feature's own question (a rider after a hit)
            return p["prompt"]
        # (only the pending kind's sentence is written: this runs for every decision)
        if kind == "action":
            return f"{actor}: choose an action"
        if kind == "target":
            use = p.get("use", ("?", "?"))
            return (f"{actor}: choose the target of the next {use[0]}" if use[0] in ("dart", "more")
                    else f"{actor}: choose a target for {use[1]}")
        if kind == "destination":
            return f"{actor}: choose where to move ({self.creatures[actor].economy.movement} ft left)"
        if kind == "route":
            return f"{actor}: choose a route"
        if kind == "point_x":
            return f"{actor}: choose the x coordinate of the point"
        if kind == "point_y":
            return f"{actor}: choose the y coordinate of the point (x = {p.get('x')})"
        if kind == "point_z":
            return f"{actor}: choose the height of the point ({p.get('x')}, {p.get('y')})"
        if kind == "direction":
            return f"{actor}: choose a direction"
        if kind == "legendary":
            return f"{actor}: take a legendary action at the end of {p.get('after')}'s turn?"
        if kind == "reaction":
            if p.get("attacker"):
                return f"{actor}: {p.get('attacker')} hits you"
            if p.get("reaction") == "readied":
                return f"{actor}: {p.get('mover')} comes within your reach (readied attack)"
            return f"{actor}: {p.get('mover')} is leaving your reach"
        return kind

    def action_options(self, c: Combatant) -> list[Opt]:
        # while one menu is built, its spell list is worked out once: Quickened, Heightened and
        # Careful Spell ask for it again (:meth:`_spell_options` keys it by what they vary)
        outer = self.__dict__.get("_menu_spells")   # a menu may rebuild itself (a rider thrown off)
        self._menu_spells = ()
        try:
            return self._action_menu(c)
        finally:
            if outer is None:
                del self._menu_spells
            else:
                self._menu_spells = outer

    def _action_menu(self, c: Combatant) -> list[Opt]:
        if "enclosed" in c.conditions and c.conditions["enclosed"].get("meld"):   # Meld into Stone
            return spell_control.meld_menu(self, c)
        e = c.economy
        out: list[Opt] = []
        slow = c.conditions.get("breath_slowed")
        if slow is not None and (e.actions < 1 or not e.bonus or slow.get("attacked") == (self.round, c.cid)):
            # Slowing Breath: an action or a bonus action, not both; one attack a turn
            e.actions, e.bonus, e.attacks_left, e.attack_queue = 0, False, 0, ()
        has_action = e.actions > 0
        self._menu_movement(c, out)
        self._menu_attacks(c, out, has_action)
        self._menu_monster_actions(c, out, has_action)
        if has_action:
            self._menu_common_actions(c, out)
        out.extend(self.spell_options(c))
        self._menu_bonus_and_free(c, out, has_action)
        out.extend(dispatch.options(self, c))   # Rage, Lay on Hands, Flurry of Blows, Quickened Spell, ...
        out.append(Opt("End turn", "end_turn"))
        return self._menu_filtered(c, out)

    def _menu_movement(self, c: Combatant, out: list[Opt]) -> None:
        """Stand up, Move."""
        e = c.economy
        prone = "prone" in c.conditions
        if prone and e.movement >= self.speed(c) // 2 and self.speed(c) > 0:
            out.append(Opt(f"Stand up (costs {self.speed(c) // 2} ft)", "stand"))
        if e.movement >= SQUARE_FT and not prone and self._can_step(c) and not (
                ("frightened" in c.conditions or "turned" in c.conditions or "aggressive_move" in c.resources)
                and not self._has_destination(c)):   # fear or turning can bar every square left
            out.append(Opt(f"Move ({e.movement} ft left)", "move"))

    def _menu_attacks(self, c: Combatant, out: list[Opt], has_action: bool) -> None:
        """The attacks: the rest of an Attack action, a multiattack in progress, or a new one; shoving."""
        e = c.economy
        while e.attack_queue and e.attack_queue[0] in c.save_actions:   # a save action in the sequence
            step = [o for o in self._save_action_options(c) if o.data[0] == e.attack_queue[0]]
            if step:   # (a mummy's Dreadful Glare, then its fist)
                out.extend(Opt(f"Multiattack: {o.label}", o.kind, (o.data[0], "queue")) for o in step)
                break
            e.attack_queue = e.attack_queue[1:]   # "if it can": not now, so the next step
        if e.attack_queue and e.attack_queue[0] in c.save_actions:
            pass
        elif e.attack_queue:
            a = c.attack(e.attack_queue[0])
            if self.targets_for_attack(c, a):
                out.append(Opt(f"Multiattack: attack with {a.name} ({a.short()})", "attack", (a.key, "queue")))
        elif e.attacks_left > 0 or has_action:
            for a in c.attacks:
                if a.loading and e.attacks_left > 0 and e.loading_fired:
                    continue   # SRD loading: one shot per action, whatever Extra Attack allows
                if not c.recharge.get(a.key, True):
                    continue   # a monster's attack on a recharge (a spider's Web)
                if self.targets_for_attack(c, a):
                    note = f", {e.attacks_left} left" if e.attacks_left else ""
                    out.append(Opt(f"Attack with {a.name} ({a.short()}{note})", "attack", (a.key, "attack")))
            if c.is_pc:   # SRD Shove: one attack of the Attack action, a contest of Athletics
                for mode, what in (("prone", "Shove prone"), ("push", "Shove away 5 ft"), ("grapple", "Grapple")):
                    if self._shove_targets(c, mode):
                        out.append(Opt(f"{what} (Athletics {self.athletics(c):+d}, contested)", "shove", (mode,)))

    def _menu_monster_actions(self, c: Combatant, out: list[Opt], has_action: bool) -> None:
        """Stat-block actions and traits: Reckless, Aggressive, Rampage, Invisibility, Healing Touch,
        Teleport, a pounce, Multiattack, a priest's Divine Eminence, a knight's Leadership."""
        e = c.economy
        if "reckless" in c.features and has_action and not e.moved and not e.attacks_left \
                and "reckless" not in c.conditions and not e.attack_queue:   # at the start of its turn
            out.append(Opt("Reckless: advantage on melee attacks this turn (attacks against it have advantage "
                           "until its next turn)", "reckless"))
        if "aggressive" in c.features and e.bonus and self.speed(c) and any(
                o.conscious for o in self.enemies_of(c)):
            out.append(Opt(f"Aggressive (bonus action): move up to {self.speed(c)} ft toward a foe", "aggressive"))
        if c.resources.get("rampage_ready") and e.bonus:
            out.append(Opt(f"Rampage (bonus action): move up to {self.speed(c) // 2} ft and make a "
                           f"{c.resources['rampage']} attack", "rampage"))
        if c.resources.get("rampage_bite"):
            a = c.attack(c.resources["rampage"])
            if self.targets_for_attack(c, a):
                out.append(Opt(f"Rampage: attack with {a.name} ({a.short()})", "attack", (a.key, "rampage")))
        if has_action and "invisibility_action" in c.features and "invisible" not in c.conditions:
            out.append(Opt("Invisibility (until it attacks or its concentration ends)", "monster_invisibility"))
        if has_action and c.resources.get("uses:healing-touch", 0) > 0 and self._touch_heal_targets(c):
            out.append(Opt(f"Healing Touch ({c.resources['healing_touch']}; "
                           f"{c.resources['uses:healing-touch']} left today)", "monster_heal"))
        if has_action:
            for key, dist in sorted(c.resources.get("teleports", {}).items()):
                if c.recharge.get(key, True):
                    out.append(Opt(f"Teleport (up to {dist} ft to a space it can see)", "monster_teleport", (key,)))
        pounce = c.resources.get("pounce_on")
        if pounce and e.bonus and pounce in self.creatures and "prone" in self.creatures[pounce].conditions:
            a = c.attack(c.resources["charge"]["bonus_attack"])
            if any(t.cid == pounce for t in self.targets_for_attack(c, a)):
                out.append(Opt(f"Bonus attack with {a.name} on prone {pounce} ({a.short()})", "attack",
                               (a.key, "pounce")))
        if has_action and c.multiattack and not e.attack_queue and e.attacks_left == 0:
            hits = [k for k in c.multiattack if k not in c.save_actions]   # its attack steps
            if hits and self.targets_for_attack(c, c.attack(hits[0])):
                out.append(Opt(f"Multiattack ({', '.join(c.multiattack)})", "multiattack"))
        if c.monster:   # a priest's Divine Eminence, a knight's Leadership
            out.extend(self._monster_boost_options(c, has_action))

    def _menu_common_actions(self, c: Combatant, out: list[Opt]) -> None:
        """With an action left: save actions, Turn Undead, and the SRD's common actions (Dash, Disengage,
        Dodge, Hide, Ready, Help, escaping)."""
        e = c.economy
        out.extend(self._save_action_options(c))
        undead = self.turnable(c)
        if undead and c.resources.get("channel_divinity", 0) > 0:
            cr = c.resources.get("destroy_undead_cr")
            extra = f"; Destroy Undead: CR {cr} or lower" if cr else ""
            out.append(Opt(f"Channel Divinity: Turn Undead (Wis DC {c.resources['spell_dc']}, "
                           f"{len(undead)} undead within 30 ft{extra}; "
                           f"{c.resources['channel_divinity']} use left)", "turn_undead"))
        out.append(Opt("Dash", "dash"))
        out.append(Opt("Disengage", "disengage"))
        out.append(Opt("Dodge", "dodge"))
        if "hidden" not in c.conditions and self.unseen(c):
            out.append(Opt(f"Hide (Stealth {self.stealth(c):+d} vs passive Perception)", "hide"))
        if c.melee_reach and e.attacks_left == 0:   # Ready: trigger = a foe enters its reach
            out.append(Opt(f"Ready an attack (reaction when a foe comes within {c.melee_reach} ft)", "ready"))
        if any(self.distance(c, o) <= SQUARE_FT for o in self.enemies_of(c)):
            out.append(Opt("Help", "help"))
        for o in self.allies_of(c):   # SRD first aid: a dying creature within reach
            if o.hp == 0 and not o.dead and not o.stable and o is not c and self.distance(c, o) <= SQUARE_FT:
                out.append(Opt(f"Stabilize {o.cid} (first aid: Wisdom (Medicine) {self.medicine(c):+d} vs DC 10)",
                               "first_aid", (o.cid,)))
        if "grappled" in c.conditions:
            g = c.conditions["grappled"]
            against = f"DC {g['dc']}" if g.get("dc") is not None else "contested"
            out.append(Opt(f"Escape the grapple ({against})", "escape"))
        web = c.conditions.get("restrained", {}).get("escape")
        if web:   # a spider's Web: an action and an ability check to burst the webbing
            out.append(Opt(f"Break free of the webbing ({web[0].capitalize()} check DC {web[1]})", "escape_web"))

    def _menu_bonus_and_free(self, c: Combatant, out: list[Opt], has_action: bool) -> None:
        """The objective's object, items and potions, bonus actions (Second Wind, the off hand, Cunning
        Action, ...), the later turns of lasting spells, Action Surge."""
        e = c.economy
        if self._object_in_reach(c):   # the objective's object: the free object interaction
            out.append(Opt(f"Use the {self.objective['name']} (free object interaction)", "interact"))
        if "_utility" in self.__dict__:   # the object through Mage Hand, the Unseen Servant (dnd/spell_utility.py)
            out.extend(spell_utility.action_options(self, c))
        if c.resources.get("potions", 0) > 0 and has_action and c.hp < c.max_hp:
            out.append(Opt(f"Drink a potion of healing (2d4+2, {c.resources['potions']} left)", "potion"))
        if c.is_pc:   # items: potions, scrolls, wands (dnd/items.py)
            out.extend(_items.item_options(self, c))
        if e.bonus and c.resources.get("second_wind", 0) > 0 and c.hp < c.max_hp:
            out.append(Opt(f"Second Wind (bonus action, heal 1d10+{c.level})", "second_wind"))
        if e.bonus and e.light_attack:   # two-weapon fighting: the other light weapon, as a bonus action
            for a in c.attacks:
                if a.offhand and a.key != e.light_attack and self.targets_for_attack(c, a):
                    out.append(Opt(f"Off-hand attack with {a.name} (bonus action, {a.to_hit:+d}, "
                                   f"{'+'.join(p.dice for p in a.offhand)})", "attack", (a.key, "offhand")))
        for offer in LATER_OPTIONS:   # the later turns of lasting spells, walls, monster zones (rules/hooks.py)
            out.extend(offer(self, c))
        if ("cunning_action" in c.features or "nimble_escape" in c.features) and e.bonus:
            what = "Cunning Action" if "cunning_action" in c.features else "Nimble Escape"   # a goblin's: no Dash
            if "hidden" not in c.conditions and self.unseen(c):
                out.append(Opt(f"{what}: Hide (Stealth {self.stealth(c):+d})", "cunning_hide"))
            if "cunning_action" in c.features:
                out.append(Opt("Cunning Action: Dash", "cunning_dash"))
            out.append(Opt(f"{what}: Disengage", "cunning_disengage"))
        if e.bonus and "cunning_action" not in c.features and spellbook.bonus_dash(c):
            out.append(Opt("Expeditious Retreat: Dash (bonus action)", "cunning_dash"))
        if c.resources.get("action_surge", 0) > 0 and not e.surged:
            out.append(Opt("Action Surge (one more action)", "action_surge"))

    def _menu_filtered(self, c: Combatant, out: list[Opt]) -> list[Opt]:
        """What reshapes the whole menu: monsters' own actions, Turn Undead's limits, mounted combat."""
        if self.specials or "ms" in c.resources:   # monsters' own actions (dnd/monster_traits/)
            out = monster_traits.menu(self, c, out)
        if "surprised" in c.conditions and "raging" not in c.conditions:   # SRD Feral Instinct: rage first
            out = [o for o in out if (o.kind == "feature" and o.data[0] == "rage") or o.kind == "end_turn"]
        if "turned" in c.conditions:   # SRD Turn Undead: move away, Dash or escape; Dodge if stuck
            keep = [o for o in out if o.kind in ("move", "dash", "escape", "stand", "end_turn")
                    and (o.kind != "move" or self._has_destination(c))]
            if not any(o.kind == "move" for o in keep):
                keep[-1:-1] = [o for o in out if o.kind == "dodge"]
            out = keep
        if "mounted" in c.conditions or "ridden" in c.conditions:   # SRD mounted combat (dnd/items.py)
            out = _items.mounted_menu(self, c, out)
        return out

    def spell_options(self, c: Combatant) -> list[Opt]:
        """Each castable spell at each legal slot level (upcasting), with a target or a placement.

        SRD bonus-action rule: after a bonus-action spell only an action cantrip may follow, and
        after a levelled action spell no bonus-action spell may."""
        e = c.economy
        slots = c.resources.get("slots", ())
        memo = self.__dict__.get("_menu_spells")
        key = (c.cid, e.actions, e.bonus, e.bonus_spell, e.levelled_action_spell, c.spells, tuple(slots))
        if memo and memo[0] == key:
            return list(memo[1])
        out = self._spell_options_now(c, content, e, slots)
        if memo is not None:
            self._menu_spells = (key, tuple(out))
        return out

    def _spell_options_now(self, c: Combatant, content, e, slots) -> list[Opt]:
        out = []
        if spellbook.no_spells(c):   # Feeblemind
            return out
        for key in c.spells:
            sp = content.spell(key)
            if sp.casting_time == "reaction":   # Shield: offered as a reaction decision, not here
                continue
            if self.zones and spell_zones.blocks_casting(self, c, key):   # Silence, Antimagic Field
                continue
            bonus = sp.casting_time == "bonus_action"
            if bonus and (not e.bonus or e.levelled_action_spell):
                continue
            if not bonus and (e.actions <= 0 or (e.bonus_spell and sp.level > 0)):
                continue
            levels = [0] if sp.level == 0 else [lv for lv in range(sp.level, len(slots) + 1) if slots[lv - 1] > 0]
            if sp.level and c.resources.get("innate", {}).get(key, 0) != 0 and sp.level not in levels:
                levels = sorted([sp.level, *levels])   # a monster's innate spell: its own level, no slot
            if not levels:
                continue
            if spell_data.handles(key):
                if not spellbook.available(self, c, key, levels[0]):
                    continue
            elif not self.spell_targets(c, key, first=True):   # the engine's own spells: a creature
                continue
            how = " (bonus action)" if bonus else ""
            for level in levels:
                at = f" at level {level}" if level else ""
                out.append(Opt(f"Cast {sp.name}{at}{how} ({self._spell_summary(c, key, level)})", "spell",
                               (key, level)))
        return out

    def _spell_summary(self, c: Combatant, key: str, level: int) -> str:
        if spell_data.handles(key):
            return spellbook.summary(c, key, level)
        if key == "magic-missile":
            return f"{2 + level} darts of 1d4+1 force, auto-hit"
        return spell_data.summary(c, key, level)   # the row's own note (Bless, Sleep, Spirit Guardians...)
