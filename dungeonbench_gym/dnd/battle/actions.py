"""The common actions of the SRD's Combat chapter (Dash, Disengage, Dodge, Help, Hide, Ready, escaping,
standing up, drinking a potion, using an object) and a few class features' own (Second Wind, Action
Surge): what choosing each does.

Part of :class:`~dungeonbench_gym.dnd.engine.Battle`.
"""

from __future__ import annotations

from .. import content, lighting, spell_buffs, spell_control, spell_zones
from ..classes import dispatch
from ..grid import SQUARE_FT, box_distance_ft
from ..model.options import Opt
from ..rules.hooks import OPTION_KINDS
from ..state import Combatant, expected_damage


class ActionsMixin:
    """Spending the action economy, and what hiding needs."""

    def spend(self, c: Combatant, bonus: bool = False) -> None:
        if bonus:
            c.economy.bonus = False
        else:
            c.economy.actions -= 1

    def dodge_holds(self, c: Combatant) -> bool:
        """SRD Dodge: the benefit is lost while the dodger is incapacitated or its speed is 0
        (asked only of a creature that took the Dodge action)."""
        return not c.incapacitated and self.speed(c) > 0

    def unseen(self, c: Combatant) -> bool:
        """Hiding needs no conscious foe with a line of sight to it (walls, obscurement)."""
        if self.zones:   # Darkness, Fog Cloud: their squares hide too (dnd/spell_zones.py)
            return not any(self.map.can_see(o.cells, c.cells, viewer_z=o.pos[2], target_z=c.pos[2])
                           and spell_zones.sees(self, o, c) for o in self.enemies_of(c) if o.conscious)
        return not any(self.map.can_see(o.cells, c.cells, viewer_z=o.pos[2], target_z=c.pos[2])
                       for o in self.enemies_of(c) if o.conscious)

    def stealth(self, c: Combatant) -> int:
        aura = spell_control.stealth_aura(self, c) if self.controls else 0   # Pass without Trace
        if c.is_pc:   # our builds: rogues are trained in Stealth
            return aura + c.mod("dex") + (c.prof if c.pc_class == "rogue" else dispatch.check_bonus(c, "dex"))
        return aura + self._skill(c, "stealth", "dex")

    @staticmethod
    def passive_perception(o: Combatant) -> int:
        if o.is_pc:   # (a passive check takes every bonus of the check: Jack of All Trades too)
            return 10 + o.mod("wis") + dispatch.check_bonus(o, "wis")
        return content.monster(o.monster).senses.get("passive_perception", 10 + o.mod("wis"))

    def _object_in_reach(self, c: Combatant) -> bool:
        obj = self.objective
        if obj["type"] != "interact" or obj.get("done") or c.side != self.party_side or not c.economy.object_use:
            return False
        x, y = obj["object"]
        return box_distance_ft(c.pos[0], c.pos[1], c.squares, c.pos[2], x, y, 1,
                               self.map.elevation_at(x, y)) <= SQUARE_FT


# ---- the SRD's common actions (Combat: Actions in Combat), and a few class features'
@OPTION_KINDS.handles("stand")
def _stand(b, c: Combatant, p: dict, opt: Opt) -> None:
    c.economy.movement -= b.speed(c) // 2
    del c.conditions["prone"]
    b.event("stand", f"{c.cid} stands up", creature=c.cid)
    b.back_to_menu(c)


@OPTION_KINDS.handles("dash", "cunning_dash")
def _dash(b, c: Combatant, p: dict, opt: Opt) -> None:
    b.spend(c, bonus=opt.kind == "cunning_dash")
    c.economy.movement += b.speed(c)
    b.event("dash", f"{c.cid} dashes", creature=c.cid)
    b.back_to_menu(c)


@OPTION_KINDS.handles("disengage", "cunning_disengage")
def _disengage(b, c: Combatant, p: dict, opt: Opt) -> None:
    b.spend(c, bonus=opt.kind == "cunning_disengage")
    c.economy.disengaged = True
    b.event("disengage", f"{c.cid} disengages", creature=c.cid)
    b.back_to_menu(c)


@OPTION_KINDS.handles("hide", "cunning_hide")
def _hide(b, c: Combatant, p: dict, opt: Opt) -> None:
    b.spend(c, bonus=opt.kind == "cunning_hide")
    roll = b.roller.roll_d20(dispatch.stealth_advantage(c), b.check_dis(c), bonus=b.stealth(c),
                             what=f"stealth {c.cid}")   # (Supreme Sneak)
    roll = roll._replace(total=dispatch.check_total(c, "dex", roll.natural, roll.total, True))
    need = max((b.passive_perception(o) - (lighting.perception_penalty(b, o, c)   # dim light, Enthrall
                                            if o.conditions or b.zones else 0)
                for o in b.enemies_of(c) if o.conscious), default=0)
    roll = roll._replace(total=dispatch.rescue_check(b, c, roll.total, need))   # (Peerless Skill, Own Luck)
    ok = roll.total >= need   # SRD: Stealth against the passive Perception of those looking
    if ok:
        c.conditions["hidden"] = {"stealth": roll.total}
    b.event("hide", f"{c.cid} {'hides' if ok else 'fails to hide'} (Stealth {roll.total} vs {need})",
            creature=c.cid, success=ok)
    b.back_to_menu(c)


@OPTION_KINDS.handles("ready")
def _ready(b, c: Combatant, p: dict, opt: Opt) -> None:
    b.spend(c)
    best = max((a for a in c.attacks if a.melee and ("swallow",) not in a.on_hit),
               key=lambda a: (expected_damage(a), a.key))
    c.conditions["readied"] = {"attack": best.key}
    b.event("ready", f"{c.cid} readies an attack with {best.key}", creature=c.cid)
    b.back_to_menu(c)


@OPTION_KINDS.handles("first_aid")
def _first_aid(b, c: Combatant, p: dict, opt: Opt) -> None:
    """SRD Stabilizing a Creature: an action and a DC 10 Wisdom (Medicine) check; a success makes
    the dying creature stable (no more death saves; its counts reset)."""
    b.spend(c)
    t = b.creatures[opt.data[0]]
    roll = b.roller.roll_d20(False, b.check_dis(c), bonus=b.medicine(c), what=f"medicine {c.cid}")
    total = dispatch.check_total(c, "wis", roll.natural, roll.total, False)
    ok = total >= 10 and t.hp == 0 and not t.dead
    if ok:
        t.stable = True
        t.death_successes = t.death_failures = 0
    b.event("first_aid", f"{c.cid} {'stabilizes' if ok else 'fails to stabilize'} {t.cid} "
            f"(Medicine {total} vs DC 10)", creature=c.cid, target=t.cid, success=ok)
    b.back_to_menu(c)


@OPTION_KINDS.handles("dodge")
def _dodge(b, c: Combatant, p: dict, opt: Opt) -> None:
    b.spend(c)
    c.dodging = True
    b.event("dodge", f"{c.cid} takes the Dodge action", creature=c.cid)
    b.back_to_menu(c)


@OPTION_KINDS.handles("help")
def _help(b, c: Combatant, p: dict, opt: Opt) -> None:
    b.pending = {"kind": "target", "actor": c.cid, "use": ("help", "Help")}


@OPTION_KINDS.handles("escape_web")
def _escape_web(b, c: Combatant, p: dict, opt: Opt) -> None:
    b.spend(c)
    ability, dc = c.conditions["restrained"]["escape"]
    roll = b.check_roll(c, ability, c.mod(ability) + dispatch.check_bonus(c, ability), f"break free {c.cid}")
    roll = roll._replace(total=dispatch.rescue_check(b, c, roll.total, dc))   # (Peerless Skill, Own Luck)
    if roll.total >= dc:
        del c.conditions["restrained"]
    b.event("escape", f"{c.cid} {'bursts' if roll.total >= dc else 'fails to burst'} the webbing "
            f"({roll.total} vs {dc})", creature=c.cid, success=roll.total >= dc)
    b.back_to_menu(c)


@OPTION_KINDS.handles("escape")
def _escape(b, c: Combatant, p: dict, opt: Opt) -> None:
    b.spend(c)
    g = c.conditions["grappled"]
    ability, trained = b.escape_ability(c)
    roll = b.check_roll(c, ability, b._escape_bonus(c) + spell_buffs.check_die(b, c), f"escape {c.cid}",
                        trained)   # Guidance
    if g.get("dc") is None:   # a PC's grapple: contested by the grappler's Athletics
        grappler = b.creatures[g["by"]]
        dc = b.check_roll(grappler, "str", b.athletics(grappler), f"hold {grappler.cid}",
                          grappler.pc_class == "fighter").total   # (its own check: poisoned, exhausted...)
        roll = roll._replace(total=dispatch.rescue_check(b, c, roll.total, dc + 1))   # (Peerless Skill, Own Luck)
        ok = roll.total > dc   # a tie leaves the grapple as it is
    else:
        dc = g["dc"]
        roll = roll._replace(total=dispatch.rescue_check(b, c, roll.total, dc))
        ok = roll.total >= dc
    if ok:
        b.release(c)
    b.event("escape", f"{c.cid} {'escapes the grapple' if ok else 'fails to escape'} "
            f"({roll.total} vs {dc})", creature=c.cid, success=ok)
    b.back_to_menu(c)


@OPTION_KINDS.handles("potion")
def _potion(b, c: Combatant, p: dict, opt: Opt) -> None:
    if opt.data:   # a potion from the inventory: the item's own handler (dnd/items.py)
        OPTION_KINDS["item"](b, c, p, opt)
        return
    b.spend(c)
    c.resources["potions"] -= 1
    b.heal(c, b.roller.roll("2d4+2", what=f"potion {c.cid}"), "a potion of healing")
    b.back_to_menu(c)


@OPTION_KINDS.handles("second_wind")
def _second_wind(b, c: Combatant, p: dict, opt: Opt) -> None:
    c.economy.bonus = False
    c.resources["second_wind"] -= 1
    b.heal(c, b.roller.roll(f"1d10+{c.level}", what=f"second wind {c.cid}"), "Second Wind")
    b.back_to_menu(c)


@OPTION_KINDS.handles("interact")
def _interact(b, c: Combatant, p: dict, opt: Opt) -> None:
    c.economy.object_use = False
    b.objective["done"] = True
    b.event("interact", f"{c.cid} uses the {b.objective['name']}", creature=c.cid)
    b.back_to_menu(c)


@OPTION_KINDS.handles("action_surge")
def _action_surge(b, c: Combatant, p: dict, opt: Opt) -> None:
    c.resources["action_surge"] -= 1
    c.economy.actions += 1
    c.economy.surged = True
    b.event("action_surge", f"{c.cid} surges: one more action", creature=c.cid)
    b.back_to_menu(c)
