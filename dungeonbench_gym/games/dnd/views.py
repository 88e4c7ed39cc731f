"""Views of a battle's state dict (``Battle.to_dict()``): the tensor encoder, the text, the map.

All three read only the plain dict, so anything that can produce that dict (a saved state, a
replay, another engine version) can be shown and encoded the same way.
"""

from __future__ import annotations

import numpy as np

from ...dnd.grid import BLOCKS, DIFFICULT, IMPASSABLE, BattleMap

N_OPTIONS = 64
GRID = 32
MAX_CREATURES = 16
GRID_CHANNELS = ("wall", "impassable", "difficult", "height", "party", "enemies", "actor", "objective")
CREATURE_FEATURES = ("present", "party", "active", "actor", "hp", "max_hp", "ac", "x", "y", "z",
                     "prone", "grappled", "down", "dodging", "reaction", "movement")
OPTION_FEATURES = ("present", "move", "attack", "spell_or_area", "end_turn", "other", "x", "y",
                   "target_hp", "target_enemy", "provokes", "group")
DECISION_KINDS = ("action", "target", "destination", "route", "point_x", "point_y", "point_z", "direction",
                  "reaction", "group", "intermission", "rest")   # the last two: the Day track, between fights
_MOVE = {"move", "destination", "route", "stand"}
_ATTACK = {"attack", "multiattack", "target"}
_AREA = {"spell", "save_action", "direction", "point_x", "point_y", "point_z"}


def terrain(state: dict) -> np.ndarray:
    """The static grid channels (walls, impassable, difficult, height, objective), padded."""
    m = BattleMap.from_dict(state["map"])
    if m.width > GRID or m.height > GRID:
        raise ValueError(f"map {m.width}x{m.height} is larger than the {GRID}x{GRID} observation grid")
    g = np.zeros((len(GRID_CHANNELS), GRID, GRID), np.float32)
    f, H, W = m.flags, m.height, m.width
    g[0, :H, :W] = (f & BLOCKS) != 0
    g[1, :H, :W] = (f & IMPASSABLE) != 0
    g[2, :H, :W] = (f & DIFFICULT) != 0
    g[3, :H, :W] = np.clip(m.elevation / 30.0, 0, 1)
    g[0, H:, :] = 1   # off the map reads as wall
    g[0, :, W:] = 1
    for x, y in state["objective"].get("cells", ()):
        g[7, y, x] = 1
    return g


def encode(state: dict, static: np.ndarray, options: bool = True) -> dict[str, np.ndarray]:
    """The numeric observation (everything but the mask) from the state dict; ``options``: with
    the legacy option rows (``OPTION_FEATURES``); the envs' default rows come from
    ``option_features.encode`` instead."""
    g = static.copy()
    d = state["decision"]
    actor = d["actor"] if d else None
    party_side = state["party_side"]
    by_id = {c["id"]: c for c in state["combatants"]}
    creatures = np.zeros((MAX_CREATURES, len(CREATURE_FEATURES)), np.float32)
    for row, c in enumerate(state["combatants"][:MAX_CREATURES]):
        if c["dead"]:
            continue
        party = c["side"] == party_side
        x, y, z = c["pos"]
        n = {"large": 2, "huge": 3, "gargantuan": 4}.get(c["size"], 1)
        g[4 if party else 5, y:y + n, x:x + n] = 1
        if c["id"] == actor:
            g[6, y:y + n, x:x + n] = 1
        e = c["economy"]
        creatures[row] = (1, party, c["id"] == state["active"], c["id"] == actor, c["hp"] / c["max_hp"],
                          min(1, c["max_hp"] / 200), min(1, c["ac"] / 30), x / GRID, y / GRID, min(1, z / 60),
                          "prone" in c["conditions"], "grappled" in c["conditions"], c["hp"] == 0,
                          c["dodging"], e["reaction"], min(1, e["movement"] / 60))
    opts = np.zeros((N_OPTIONS, len(OPTION_FEATURES)), np.float32)
    kind = np.zeros(len(DECISION_KINDS), np.float32)
    if d:
        kind[DECISION_KINDS.index(d["kind"])] = 1
        if options:
            for i, o in enumerate(d["options"]):
                opts[i] = _option_row(o, by_id, party_side)
    if options:
        return {"grid": g, "creatures": creatures, "options": opts, "decision": kind}
    return {"grid": g, "creatures": creatures, "decision": kind}


def _option_row(o: dict, by_id: dict, party_side: str) -> list:
    k = o["kind"]
    row = [1.0, k in _MOVE, k in _ATTACK, k in _AREA, k == "end_turn", 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
           k == "group"]
    row[5] = not any(row[1:5])
    if "pos" in o:
        row[6], row[7] = o["pos"][0] / GRID, o["pos"][1] / GRID
    elif "target" in o:
        t = by_id[o["target"]]
        row[6], row[7] = t["pos"][0] / GRID, t["pos"][1] / GRID
        row[8] = t["hp"] / t["max_hp"]
        row[9] = t["side"] != party_side
    elif "x" in o:
        row[6] = o["x"] / GRID
    elif "y" in o:
        row[7] = o["y"] / GRID
    elif "direction" in o:
        row[6], row[7] = (o["direction"][0] + 1) / 2, (o["direction"][1] + 1) / 2
    elif "provokes" in o:
        row[10] = min(1, len(o["provokes"]) / 4)
    return row


def objective_text(state: dict) -> str:
    o = state["objective"]
    if o["type"] == "reach":
        return "reach " + ", ".join(f"({x}, {y})" for x, y in o["cells"])
    if o["type"] == "survive":
        return f"survive {state['round_limit']} rounds"
    if o["type"] == "protect":
        return f"defeat all enemies while {o['creature']} stays up"
    if o["type"] == "hold":
        cells = ", ".join(f"({x}, {y})" for x, y in o["cells"])
        return (f"hold the area {cells} for {o['rounds']} rounds in a row "
                f"(held {o.get('held', 0)} so far): a party member in it, no enemy")
    if o["type"] == "interact":
        x, y = o["object"]
        return f"use the {o.get('name', 'object')} at ({x}, {y}) (free object interaction within 5 ft)"
    return "defeat all enemies"


def text(state: dict, title: str) -> tuple[str, str]:
    """(long_term, short_term): the situation and recent events; the decision and its options."""
    party_side = state["party_side"]
    lines = [f"{title}: round {state['round']}/{state['round_limit']}, objective: {objective_text(state)}",
             "Map (x to the east from 0, y to the south from 0):", ansi_map(state)]
    for c in sorted(state["combatants"], key=lambda c: (c["side"] != party_side, c["id"])):
        if c["dead"]:
            status = "dead"
        else:
            status = f"{c['hp']}/{c['max_hp']} HP" + ("" if c["hp"] > 0 else ", unconscious")
        conds = ", ".join(k for k in c["conditions"] if k != "helped")
        extra = []
        slots = c["resources"].get("slots")
        if slots:
            extra.append("spell slots " + " ".join(f"L{i + 1}:{n}" for i, n in enumerate(slots) if n))
        if c["concentration"]:
            extra.append(f"concentrating on {c['concentration']}")
        if "breath" in c["resources"]:   # under water (dnd/spell_utility.py)
            extra.append(f"breath {c['resources']['breath']} rounds")
        if "light" in state and not c["dead"]:   # a dark battle: how lit its square is (dnd/lighting.py)
            extra.append(("in darkness", "in dim light", "in bright light")[_light_level(state, c)])
        lines.append(f"- {c['id']} ({'party' if c['side'] == party_side else 'enemy'}, {c['name']}) at "
                     f"({c['pos'][0]}, {c['pos'][1]}): {status}, AC {c['ac']}"
                     + (f", {conds}" if conds else "") + "".join(f", {x}" for x in extra))
    lines.extend(f"Lasting area: {z}" for z in state.get("zones", ()))   # dnd/spell_zones.py
    light = state.get("light")
    if light:   # a dark or dim battle (dnd/lighting.py)
        lines.append(f"Lighting: the battle is {light['ambient']} where no light reaches; creatures in darkness "
                     "are unseen without darkvision; light: " + ("; ".join(light["sources"]) or "none"))
    lines.append("Recent events:")
    lines.extend("  " + e for e in state["recent_events"])
    d = state["decision"]
    if d is None:
        return "\n".join(lines), f"The battle is over: {state['outcome']}."
    short = [d["prompt"] + ":"] + [f"{i}. {o['label']}" for i, o in enumerate(d["options"])]
    return "\n".join(lines), "\n".join(short)


def _light_level(state: dict, c: dict) -> int:
    """The light on a creature's squares in a dark battle's state dict: 0 dark, 1 dim, 2 bright."""
    light = state["light"]
    lit = {(x, y): lv for x, y, lv in light["lit"]}
    x, y, _ = c["pos"]
    n = {"large": 2, "huge": 3, "gargantuan": 4}.get(c["size"], 1)
    base = {"dark": 0, "dim": 1}.get(light["ambient"], 2)
    return max([base] + [lit.get((x + i, y + j), base) for j in range(n) for i in range(n)])


def ansi_map(state: dict) -> str:
    """The map as characters: party members by capital initial, enemies by small, with a legend."""
    rows = [list(r) for r in state["map"]["layout"]]
    legend: dict[str, list[str]] = {}
    for c in state["combatants"]:
        if c["dead"]:
            continue
        ch = c["id"][0].upper() if c["side"] == state["party_side"] else c["id"][0].lower()
        x, y, _ = c["pos"]
        n = {"large": 2, "huge": 3, "gargantuan": 4}.get(c["size"], 1)
        for j in range(n):
            for i in range(n):
                rows[y + j][x + i] = ch
        legend.setdefault(ch, []).append(c["id"])
    grid = "\n".join("".join(r) for r in rows)
    keys = "  ".join(f"{ch}={'/'.join(v)}" for ch, v in sorted(legend.items()))
    terrain_keys = "#=wall ,=difficult O=pillar ==low wall ~=water"
    named = "  ".join(f"{ch}={spec['name']}" for ch, spec in state["map"]["legend"].items() if "name" in spec)
    plants = "  ".join(f"{ch}={'tree' if spec.get('tree') else 'overgrown' if spec.get('overgrown') else 'undergrowth'}"
                       for ch, spec in state["map"]["legend"].items()   # trees, plants (dnd/spell_plants.py)
                       if "name" not in spec and (spec.get("tree") or spec.get("plants") or spec.get("overgrown")))
    named = "  ".join(x for x in (named, plants) if x)
    return f"{grid}\n{keys}  {terrain_keys}" + (f"  {named}" if named else "")


TILE = 16
_TERRAIN_RGB = {"floor": (200, 196, 184), "wall": (60, 60, 66), "difficult": (176, 150, 110),
                "water": (90, 140, 210), "hazard": (210, 110, 90), "impassable": (25, 25, 30),
                "cover": (150, 150, 150), "objective": (120, 200, 120), "tree": (40, 105, 50),
                "plants": (135, 165, 95), "overgrown": (85, 125, 50)}


def rgb(state: dict) -> np.ndarray:
    """A top-down battle map: terrain (lighter with height; in a dark battle darker where no light
    reaches), objective squares, creatures as discs (party blue, enemies red, the deciding creature
    outlined yellow) with HP bars."""
    from ...dnd.grid import HALF_COVER, HAZARD, OVERGROWN, PLANTS, THREE_QUARTERS_COVER, TREE, WATER
    m = BattleMap.from_dict(state["map"])
    H, W = m.height, m.width
    img = np.zeros((H * TILE, W * TILE, 3), np.uint8)
    for y in range(H):
        for x in range(W):
            f = int(m.flags[y, x])
            key = ("tree" if f & TREE else "wall" if f & BLOCKS else "impassable" if f & IMPASSABLE
                   else "hazard" if f & HAZARD else "water" if f & WATER
                   else "cover" if f & (HALF_COVER | THREE_QUARTERS_COVER) else "overgrown" if f & OVERGROWN
                   else "plants" if f & PLANTS else "difficult" if f & DIFFICULT else "floor")
            colour = np.array(_TERRAIN_RGB[key], np.float32)
            colour = np.minimum(255, colour * (1 + int(m.elevation[y, x]) / 60))
            img[y * TILE:(y + 1) * TILE, x * TILE:(x + 1) * TILE] = colour.astype(np.uint8)
            img[y * TILE, x * TILE:(x + 1) * TILE] = img[y * TILE:(y + 1) * TILE, x * TILE] = 170 if key == "floor" else 0
    light = state.get("light")
    if light:   # a dark battle: unlit squares darkest, dim light darker (dnd/lighting.py)
        base = {"dark": 0, "dim": 1}.get(light["ambient"], 2)
        shade = np.full((H, W), (0.4, 0.7, 1.0)[base], np.float32)
        for x, y, lv in light["lit"]:
            shade[y, x] = (0.4, 0.7, 1.0)[lv]
        img[:] = (img * np.repeat(np.repeat(shade, TILE, 0), TILE, 1)[:, :, None]).astype(np.uint8)
    for x, y in state["objective"].get("cells", ()):
        img[y * TILE + 2:(y + 1) * TILE - 2, x * TILE + 2:(x + 1) * TILE - 2] = _TERRAIN_RGB["objective"]
    actor = state["decision"]["actor"] if state["decision"] else None
    yy, xx = np.mgrid[0:TILE, 0:TILE]
    for c in state["combatants"]:
        if c["dead"]:
            continue
        n = {"large": 2, "huge": 3, "gargantuan": 4}.get(c["size"], 1)
        x, y, _ = c["pos"]
        size = n * TILE
        yy, xx = np.mgrid[0:size, 0:size]
        r = size / 2 - 2
        disc = (yy - size / 2 + 0.5) ** 2 + (xx - size / 2 + 0.5) ** 2 <= r * r
        ring = disc & ((yy - size / 2 + 0.5) ** 2 + (xx - size / 2 + 0.5) ** 2 >= (r - 2) ** 2)
        party = c["side"] == state["party_side"]
        colour = (60, 100, 220) if party else (200, 50, 50)
        if c["hp"] == 0:
            colour = tuple(v // 2 for v in colour)
        block = img[y * TILE:y * TILE + size, x * TILE:x * TILE + size]
        block[disc] = colour
        if c["id"] == actor:
            block[ring] = (250, 220, 40)
        filled = round((size - 4) * c["hp"] / c["max_hp"])
        block[1:3, 2:size - 2] = (60, 20, 20)
        block[1:3, 2:2 + filled] = (60, 200, 60)
    return img
