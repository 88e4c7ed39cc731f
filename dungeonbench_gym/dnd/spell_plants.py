"""Trees and plants on the battle map: Tree Stride, Transport via Plants and Plant Growth (SRD).

Terrain (:mod:`.grid`): a map's legend marks trees (``tree = true``, default character ``T``) and
plants one walks through (``plants = true``: undergrowth, brush, crops; default ``;``, which is
difficult terrain too). A tree's square is not entered and gives three-quarters cover (SRD cover:
"a thick tree trunk"); it counts as a Large plant. ``BattleMap.tree_cells`` / ``plant_cells`` list
them. Overgrown plants (``overgrown = true``) cost 4 ft of movement a foot (20 ft a square).

The three spells are rows ``"mech": "plants"`` of ``spell_mechanics.json``; the spellbook hands
them here (available, begin, summary, the area's resolution), and the engine reaches this module
through small guarded calls: its teleport destination decision (``use[0] == "plants"``), the
action menu and the start of a turn (only once one of these spells was cast: ``plant_magic`` in
the battle's ``__dict__``, so every other battle pays one dictionary look-up).

* **Tree Stride** (5th, action, self, concentration up to 1 minute). While the caster
  concentrates, once a round on its turn the menu offers *Tree Stride* when it is within 5 ft of a
  tree, has at least 10 ft of movement left, is not prone and can move: SRD, 5 ft of movement to
  enter the tree and another 5 ft to appear within 5 ft of a different tree within 500 ft of it.
  A ``destination`` decision picks the space (every unoccupied space within 5 ft of such a tree;
  grouped by row past 64 options). It is a teleport: no opportunity attack, no hazard or zone on
  the way, a grapple ends (as Misty Step). With less than 10 ft left it is not offered (SRD: with
  no movement left after entering one appears beside the tree one entered: no move at all).
  A dryad's Tree Stride trait is the same step (once on its turn, 10 ft of movement) to a tree
  within 60 ft (``tree_stride`` in its features, from the stat block).
* **Transport via Plants** (6th, action, 10 ft, 1 round). A tree within 10 ft of the caster (a
  ``destination`` decision picks it when there are several) is linked to another tree of the map,
  the second ``destination`` decision (every tree on the battle map counts as seen or touched
  before). Until the start of the caster's next turn (the SRD's 1 round) any creature, friend or
  foe, within 5 ft of the linked tree may spend 5 ft of movement to step into it and out of the
  other: a menu option, then a ``destination`` decision among the unoccupied spaces within 5 ft
  of the exit tree. One way only, as the SRD links the target plant to the destination plant.
* **Plant Growth** (3rd, action, 150 ft, instantaneous): the 1-action use. The engine's point
  decision places its 100-ft-radius sphere; every plant square in it (reached from the point, as
  any sphere) becomes overgrown for the rest of the battle. The caster's exclusion ("areas of any
  size") is played as one fixed choice: the squares of the caster's side and the squares next to
  them stay as they were, so nobody of its side is caught in the growth. The battle's map is
  replaced by a derived one (``BattleMap.with_cells``, as walls do; the first map a wall keeps to
  rebuild from is grown too). Offered only while the map has plant squares (not yet overgrown)
  within 250 ft of the caster. The 8-hour enrichment use does nothing in a battle (out of scope).

Simplifications: all trees on a map are living trees of one kind and Large; distances between
trees and to a tree ignore height (trees are tall); a creature steps out of a tree onto the
ground; Land's Stride ignores the overgrowth (it is instantaneous, so nonmagical plants).
"""

from __future__ import annotations

from . import areas, content, spellbook
from .grid import OVERGROWN, PLANTS, SQUARE_FT, BattleMap, footprint
from .model.options import Opt
from .rules import hooks

KEY = "plant_magic"          # the battle's record (in its __dict__): links and strides
STRIDE_FT = 2 * SQUARE_FT    # Tree Stride: 5 ft to enter a tree, 5 ft to step out of another (SRD)
STRIDE_RANGE_FT = 500
DRYAD_RANGE_FT = 60          # a dryad's Tree Stride trait: the second tree within 60 ft of the first
TRANSPORT_FT = SQUARE_FT     # Transport via Plants: "by using 5 feet of movement"
TRANSPORT_RANGE_FT = 10
GROWTH_RADIUS_FT = 100
TREE_SQUARES = 2             # a tree counts as a Large plant: Tree Stride takes creatures up to Large
_STUCK = ("enclosed", "swallowed", "engulfed", "mounted", "ridden")


def _state(b) -> dict:
    st = b.__dict__.get(KEY)
    if st is None:
        st = b.__dict__[KEY] = {"links": [], "strode": {}, "serial": 0}
    return st


def _gap(x: int, y: int, n: int, cell) -> int:
    """Squares between an n x n space anchored at (x, y) and a cell, on the ground plan."""
    return max(cell[0] - (x + n - 1), x - cell[0], cell[1] - (y + n - 1), y - cell[1], 0)


def _tree_ft(a, b) -> int:
    return SQUARE_FT * max(abs(a[0] - b[0]), abs(a[1] - b[1]))


def trees_near(b, c, feet: int) -> list:
    """The trees within ``feet`` of c's space."""
    x, y, _ = c.pos
    return [t for t in b.map.tree_cells if _gap(x, y, c.squares, t) * SQUARE_FT <= feet]


def _free_to_move(b, c, feet: int) -> bool:
    return (c.economy.movement >= feet and "prone" not in c.conditions and b.speed(c) > 0
            and not any(k in c.conditions for k in _STUCK))


def exits(b, c, tree) -> list:
    """Positions (x, y, z) where c may appear beside a tree: unoccupied spaces within 5 ft of it
    (c's own space excepted), on the ground; never closer to what frightens it."""
    n, m = c.squares, b.map
    taken = {cell for o in b.creatures.values() if not o.dead and o is not c for cell in o.cells}
    fear = c.conditions.get("frightened")
    source = b.creatures.get(fear.get("by")) if fear else None
    here = b.distance(c, source) if source is not None and not source.dead else None
    out = []
    for y in range(tree[1] - n, tree[1] + 2):
        for x in range(tree[0] - n, tree[0] + 2):
            if (x, y) == tuple(c.pos[:2]) or not m.fits(x, y, n):
                continue
            if any(cell in taken for cell in footprint(x, y, n)):
                continue
            pos = (x, y, m.standing_z(x, y, n))
            if here is not None and b.distance_from(c, pos, source) < here:
                continue   # SRD Frightened: not willingly closer to the source of its fear
            out.append(pos)
    return out


def stride_range(c) -> int:
    """How far apart the two trees may be: 500 ft while concentrating on Tree Stride, 60 ft for a
    dryad's trait, 0 for anyone else."""
    if c.concentration == "tree-stride":
        return STRIDE_RANGE_FT
    return DRYAD_RANGE_FT if "tree_stride" in c.features else 0


def stride_exits(b, c) -> dict:
    """Tree Stride: position -> (the tree entered, the tree stepped out of), row-major."""
    entries = trees_near(b, c, SQUARE_FT)
    out: dict = {}
    rng = stride_range(c)
    if not entries or not rng:
        return out
    for t in b.map.tree_cells:
        entry = next((e for e in entries if e != t and _tree_ft(e, t) <= rng), None)
        if entry is None:
            continue
        for pos in exits(b, c, t):
            out.setdefault(pos, (entry, t))
    return dict(sorted(out.items(), key=lambda kv: (kv[0][1], kv[0][0])))


def can_stride(b, c) -> bool:
    if not stride_range(c) or c.squares > TREE_SQUARES or not _free_to_move(b, c, STRIDE_FT):
        return False
    st = b.__dict__.get(KEY)
    return not (st and st["strode"].get(c.cid) == b.round)   # once a round


def _sources(b, c) -> list:
    """Transport via Plants: the trees within 10 ft of the caster that another tree can be linked to."""
    if len(b.map.tree_cells) < 2:
        return []
    return trees_near(b, c, TRANSPORT_RANGE_FT)


def _links_from(b, c) -> list:
    """The live links c can step through now: within 5 ft of the linked tree, 5 ft to spend."""
    st = b.__dict__.get(KEY)
    if not st or not st["links"] or not _free_to_move(b, c, TRANSPORT_FT):
        return []
    x, y, _ = c.pos
    return [ln for ln in st["links"] if _gap(x, y, c.squares, ln["from"]) <= 1 and exits(b, c, ln["to"])]


def _link(b, serial: int) -> dict | None:
    st = b.__dict__.get(KEY)
    return next((ln for ln in st["links"] if ln["id"] == serial), None) if st else None


# ================================================================ the spellbook's calls
def placement(key: str) -> str:
    return {"tree-stride": "self", "transport-via-plants": "destination"}.get(key, "point")


def available(b, c, key: str, level: int) -> bool:
    """Offered only where it can do something: trees for the two teleports, plants for Plant Growth."""
    m = b.map
    if key == "tree-stride":
        return c.concentration != key and c.squares <= TREE_SQUARES and len(m.tree_cells) >= 2
    if key == "transport-via-plants":
        return bool(_sources(b, c))
    reach = (_range(key) + GROWTH_RADIUS_FT) // SQUARE_FT
    x, y, _ = c.pos
    return any(not m.flags_at(*p) & OVERGROWN and _gap(x, y, c.squares, p) <= reach for p in m.plant_cells) \
        and b.point_ok(c, x, y, _range(key))


def _range(key: str) -> int:
    return content.spell(key).range_feet or 0


def summary(c, key: str, level: int) -> str:
    if key == "tree-stride":
        return ("once a round, 10 ft of movement: into a tree within 5 ft, out beside another within 500 ft; "
                "concentration")
    if key == "transport-via-plants":
        return "links a tree within 10 ft to another tree: anyone beside it steps through for 5 ft of movement, 1 round"
    return "plants within 100 ft of a point become overgrown: 4 ft of movement per foot"


def begin(b, c, key: str, level: int) -> None:
    """The cast option was chosen: Tree Stride takes effect; Transport via Plants asks for its
    trees; Plant Growth for its point (the engine's point decision)."""
    if key == "tree-stride":
        b.pay_spell(c, key, level)
        _state(b)
        b.event("tree_stride_cast", f"{c.cid} can stride from tree to tree", creature=c.cid)
        b.back_to_menu(c)
    elif key == "transport-via-plants":
        srcs = _sources(b, c)
        if len(srcs) == 1:
            _ask_link(b, c, level, srcs[0])
        else:
            b.pending = {"kind": "destination", "actor": c.cid, "use": ("plants", "source", level),
                         "prompt": f"{c.cid}: choose the tree within 10 ft to link (Transport via Plants)"}
    else:
        b.pending = {"kind": "point_x", "actor": c.cid, "use": ("spell", key, level)}


def _ask_link(b, c, level: int, src: tuple) -> None:
    b.pending = {"kind": "destination", "actor": c.cid, "use": ("plants", "link", level, src),
                 "prompt": f"{c.cid}: choose the tree to link the tree at ({src[0]}, {src[1]}) to"}


# ================================================================ the engine's calls
def menu_options(b, c) -> list:
    """Tree Stride and the live links of Transport via Plants on c's action menu."""
    out = []
    if can_stride(b, c) and stride_exits(b, c):
        out.append(Opt(f"Tree Stride: into a tree within 5 ft, out beside another within {stride_range(c)} ft "
                       f"({STRIDE_FT} ft of movement)", "plants", ("stride",)))
    for ln in _links_from(b, c):
        (fx, fy), (tx, ty) = ln["from"], ln["to"]
        out.append(Opt(f"Transport via Plants: into the tree at ({fx}, {fy}), out of the tree at ({tx}, {ty}) "
                       f"({TRANSPORT_FT} ft of movement)", "plants", ("transport", ln["id"])))
    return out


def apply(b, c, opt) -> None:
    """A menu option of this module: the destination decision follows."""
    if opt.data[0] == "stride":
        b.pending = {"kind": "destination", "actor": c.cid, "use": ("plants", "stride")}
    else:
        b.pending = {"kind": "destination", "actor": c.cid, "use": ("plants", "exit", opt.data[1])}


def _near_note(b, c, pos) -> str:
    foes = [o for o in b.enemies_of(c) if o.conscious] or b.enemies_of(c)
    if not foes:
        return ""
    d, o = min((b.distance_from(c, pos, o), o.cid) for o in foes)
    return f", {d} ft from {o}"


def destination_options(b, c, p: dict) -> list:
    """The squares (or trees) of this module's destination decisions."""
    use = p["use"]
    out = []
    if use[1] == "stride":
        for pos, (_entry, t) in stride_exits(b, c).items():
            out.append(Opt(f"Step out of the tree at ({t[0]}, {t[1]}) to ({pos[0]}, {pos[1]}){_near_note(b, c, pos)}",
                           "destination", (pos,), group=f"row y={pos[1]}"))
    elif use[1] == "exit":
        ln = _link(b, use[2])
        for pos in (exits(b, c, ln["to"]) if ln is not None else ()):
            out.append(Opt(f"Step out of the tree at ({ln['to'][0]}, {ln['to'][1]}) to ({pos[0]}, {pos[1]})"
                           f"{_near_note(b, c, pos)}", "destination", (pos,), group=f"row y={pos[1]}"))
    elif use[1] == "source":
        for t in _sources(b, c):
            out.append(Opt(f"Link the tree at ({t[0]}, {t[1]})", "destination", ((*t, b.map.elevation_at(*t)),),
                           group=f"row y={t[1]}"))
    else:   # "link": the destination tree, any other tree of the map
        src = use[3]
        for t in b.map.tree_cells:
            if t != src:
                out.append(Opt(f"Link the tree at ({src[0]}, {src[1]}) to the tree at ({t[0]}, {t[1]}) "
                               f"({_tree_ft(src, t)} ft away{_near_note(b, c, (*t, 0))})", "destination",
                               ((*t, b.map.elevation_at(*t)),), group=f"row y={t[1]}"))
    return out


def arrive(b, c, p: dict, pos: tuple) -> None:
    """A destination of this module was chosen."""
    use = p["use"]
    if use[1] == "source":
        _ask_link(b, c, use[2], tuple(pos[:2]))
        return
    if use[1] == "link":
        b.pay_spell(c, "transport-via-plants", use[2])
        st = _state(b)
        st["serial"] += 1
        st["links"].append({"id": st["serial"], "by": c.cid, "from": use[3], "to": tuple(pos[:2]),
                            "round": b.round, "index": b.turn_index})
        b.event("plant_link", f"{c.cid} links the tree at {use[3]} to the tree at {tuple(pos[:2])}",
                creature=c.cid, link=[list(use[3]), list(pos[:2])])
        b.back_to_menu(c)
        return
    if use[1] == "stride":
        entry, tree = stride_exits(b, c)[tuple(pos)]
        _state(b)["strode"][c.cid] = b.round
        cost, what = STRIDE_FT, f"steps into the tree at {entry} and out of the tree at {tree}"
    else:
        ln = _link(b, use[2])
        entry, tree = ln["from"], ln["to"]
        cost, what = TRANSPORT_FT, f"steps through the linked trees ({entry} to {tree})"
    e = c.economy
    e.movement -= cost
    e.moved += cost
    c.pos = tuple(pos)
    b.release(c)   # out of the grappler's reach
    b.release_grapples_by(c)
    b.event("tree_stride" if use[1] == "stride" else "transport", f"{c.cid} {what} to ({pos[0]}, {pos[1]})",
            creature=c.cid, pos=list(pos), entry=list(entry), tree=list(tree))
    b.back_to_menu(c)


def start_of_turn(b, c) -> None:
    """Transport via Plants lasts 1 round: a link ends when the caster's next turn starts (its
    place in the order comes round again, so it ends on time when the caster is down too)."""
    st = b.__dict__[KEY]
    if not st["links"]:
        return
    now = (b.round, b.turn_index)
    for ln in [ln for ln in st["links"] if now >= (ln["round"] + 1, ln["index"])]:
        st["links"].remove(ln)
        b.event("plant_link_end", f"the link from the tree at {ln['from']} ends", creature=ln["by"])


# ================================================================ Plant Growth
def excluded(b, c) -> set:
    """The squares the caster leaves out of the growth: those of its side and next to them."""
    out = set()
    for o in b.creatures.values():
        if o.side == c.side and not o.dead:
            x, y, _ = o.pos
            out.update((x + i, y + j) for j in range(-1, o.squares + 1) for i in range(-1, o.squares + 1))
    return out


def growth_cells(b, c, area) -> list:
    """The plant squares the area overgrows (in it, reached from its point, not left out)."""
    m, spare = b.map, excluded(b, c)
    return [p for p in m.plant_cells if not m.flags_at(*p) & OVERGROWN and p not in spare
            and areas.affects(area, m, (p,))]


def _grown(m, cells):
    changes = {}
    for x, y in cells:
        f = m.flags_at(x, y)
        if f & PLANTS and not f & OVERGROWN:   # (a wall standing there now keeps its square)
            spec = changes[(x, y)] = dict(m.legend[m.layout[y][x]], overgrown=True)
            if "name" in spec:
                spec["name"] = f"overgrown {spec['name']}"
    return m.with_cells(changes) if changes else m


def resolve_area(b, c, use: tuple, where) -> None:
    """Plant Growth's point is chosen: the plants there become thick and overgrown."""
    key, level = use[1], use[2]
    cells = growth_cells(b, c, spellbook.area(b, c, key, where))
    b.pay_spell(c, key, level)
    walls = b.__dict__.get("barriers")
    if walls is not None:   # the map the walls rebuild from grows too (dnd/spell_walls.py)
        walls.base = _grown(walls.base, cells)
    b.replace_map(_grown(b.map, cells))
    b.event("plant_growth", f"{c.cid}'s Plant Growth: {len(cells)} squares of plants become thick and overgrown",
            creature=c.cid, cells=[list(p) for p in cells])
    b.back_to_menu(c)


# ================================================================ the item probe's room
def scroll_arena(b) -> None:
    """The item probe's room (the reader at (2, 2), its foe at (3, 2)) with a tree beside the
    reader, another across the room and undergrowth between (for a scroll of these spells)."""
    rows = ["##########", "#T.......#", "#........#", "#...;;;..#", "#...;;;..#", "#......T.#", "#........#",
            "##########"]
    b.replace_map(BattleMap.from_dict({"name": "grove", "layout": rows}))


# ---- what this module answers in the engine's dispatch (dnd/rules/hooks.py)
@hooks.DESTINATION_USES.handles("plants")   # out of a tree: the tree chosen
def _arrive_by_plants(b, c, p, opt) -> None:
    arrive(b, c, p, opt.data[0])


@hooks.OPTION_KINDS.handles("plants")   # Tree Stride, a Transport via Plants link: the square next
def _choose_plants(b, c, p, opt) -> None:
    apply(b, c, opt)


def _begin_taken(b, c, key: str, level: int) -> bool:
    begin(b, c, key, level)
    return True   # every plant spell asks its own questions or takes effect at once


hooks.SPELL_MECHANISMS.register("plants", hooks.SpellMechanism(
    placement=placement, available=available, begin=_begin_taken, summary=summary, resolve_area=resolve_area))


@hooks.LATER_OPTIONS.step(70)
def _later_options(b, c) -> list:
    if "plant_magic" in b.__dict__ or "tree_stride" in c.features:   # Tree Stride, a link
        return menu_options(b, c)
    return []
