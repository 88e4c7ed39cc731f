"""BALROG's NetHack text (`balrog_text.py`), from the rules of NLE's language
wrapper as BALROG's fork ships it (win/rl/language_wrapper/main.cpp of
balrog-ai/nle) and BALROG's hybrid layout (environments/nle/base.py).
`benchmarks/balrog_parity_nethack.py` compares the module with the wrapper
itself; these tests pin the rules without it."""

import pickle

import numpy as np
import pytest

pytest.importorskip("nle")

from nle import nethack as nh  # noqa: E402

import dungeonbench_gym  # noqa: E402
from dungeonbench_gym.games.nethack import balrog_text as bt  # noqa: E402
from dungeonbench_gym.games.nethack.names import glyph_name  # noqa: E402
from dungeonbench_gym.llm.balrog_protocol import ENV_SETTINGS  # noqa: E402

# NetHack's map symbols by their defsym index (rm.h): S_stone, S_hwall, S_room, S_fountain
DARK, HWALL, FLOOR, FOUNTAIN = (nh.GLYPH_CMAP_OFF + i for i in (0, 2, 19, 31))


def _monster(name):
    index = next(i for i in range(nh.NUMMONS) if nh.permonst(i).mname == name)
    return nh.GLYPH_MON_OFF + index


def _screen(hero=(10, 5)):
    glyphs = np.full((21, 79), FLOOR, np.int16)
    glyphs[hero[1], hero[0]] = _monster("human")
    blstats = np.zeros(27, np.int64)
    blstats[0], blstats[1] = hero
    return glyphs, blstats


def _terminal(rows, indent=0):
    tty = np.full((24, 80), ord(" "), np.uint8)
    for r, text in rows.items():
        tty[r, indent:indent + len(text)] = np.frombuffer(text.encode(), np.uint8)
    return tty


# -------------------------------------------------------------- positions
@pytest.mark.parametrize("dx,north,words", [
    (1, 0, ("adjacent", "east")), (-1, -1, ("adjacent", "southwest")),
    (2, 1, ("very near", "eastnortheast")), (1, 2, ("very near", "northnortheast")),
    (-2, -1, ("very near", "westsouthwest")), (3, 0, ("near", "east")),
    (0, 5, ("near", "north")), (6, 0, ("far", "east")), (-19, 4, ("far", "westnorthwest")),
    (0, -20, ("very far", "south")), (40, 40, ("very far", "northeast")),
])
def test_distance_is_the_longer_offset_and_direction_one_of_sixteen(dx, north, words):
    assert bt.position_words(dx, north) == words


@pytest.mark.parametrize("noun,plural", [
    ("newt", "newts"), ("ruby", "rubies"), ("key", "keys"), ("fox", "foxes"),
    ("dwarf", "dwarves"), ("staff", "staves"), ("glass", "glasses"), ("lens", "lenses"),
    ("high boots", "high boots"), ("iron bars", "iron bars"), ("ice", "area of ice"),
    ("scroll labeled FOO", "scrolls labeled FOO"), ("can of grease", "cans of grease"),
    ("unknown creature causing you worry", "unknown creatures causing you worry"),
])
def test_plurals_follow_the_wrappers_english(noun, plural):
    assert bt.plural(noun) == plural


# ------------------------------------------------------ the language observation
def test_things_anywhere_walls_only_along_rays_nearest_last_north_first():
    glyphs, blstats = _screen()
    jackal = _monster("jackal")
    glyphs[5, 13] = jackal            # 3 east
    glyphs[2, 10] = jackal            # 3 north, beyond the wall: things are listed anywhere
    glyphs[3, 10] = HWALL             # 2 north: the ray north stops here
    glyphs[1, 10] = HWALL             # behind it: never reached
    glyphs[5, 8] = DARK               # 2 west: dark stone stops the ray west
    glyphs[5, 2] = FOUNTAIN           # 8 west, behind it: listed anywhere
    glyphs[5, 16] = glyphs[5, 17] = _monster("newt")   # 6 and 7 east: one plural line
    assert bt.text_glyphs(glyphs, blstats) == "\n".join([
        "newts far east", "fountain far west", "jackal near north and east",
        "horizontal wall very near north", "dark area very near west"])


def test_floor_and_the_hero_are_never_listed():
    glyphs, blstats = _screen()
    assert bt.text_glyphs(glyphs, blstats) == ""


def test_three_directions_are_joined_with_commas_and_and():
    glyphs, blstats = _screen()
    for x, y in ((11, 4), (11, 5), (11, 6)):
        glyphs[y, x] = _monster("newt")
    assert bt.text_glyphs(glyphs, blstats) == "newt adjacent northeast, east, and southeast"


def test_objects_are_named_by_appearance():
    potion = next(i for i in range(nh.NUM_OBJECTS)
                  if ord(nh.objclass(i).oc_class) == nh.POTION_CLASS
                  and nh.objdescr.from_idx(i).oc_descr)
    look = nh.objdescr.from_idx(potion).oc_descr
    glyphs, blstats = _screen()
    glyphs[5, 11] = nh.GLYPH_OBJ_OFF + potion
    assert bt.text_glyphs(glyphs, blstats) == f"{look} potion adjacent east"
    # our own text names it the same way
    assert glyph_name(nh.GLYPH_OBJ_OFF + potion) == f"{look} potion"


# ------------------------------------------------------------------ cursor
def test_cursor_names_what_it_is_on_relative_to_the_hero():
    glyphs, blstats = _screen()
    glyphs[5, 13] = _monster("jackal")
    on_hero = np.array([6, 10])          # terminal row = map row + 1
    assert bt.text_cursor(glyphs, blstats, on_hero) == "Yourself a human"
    assert bt.text_cursor(glyphs, blstats, np.array([6, 13])) == "near east jackal"
    assert bt.text_cursor(glyphs, blstats, np.array([0, 20])) == ""   # on the message line


# ------------------------------------------------------------------ message
def test_message_is_the_top_line_trimmed():
    tty = _terminal({0: "  You see here a dagger.", 5: "|....@...|"})
    assert bt.text_message(tty) == "You see here a dagger."


def test_a_menu_reads_down_to_its_end_marker_without_blank_rows():
    tty = _terminal({0: "Pick up what?", 2: "Weapons", 3: "a - a dagger", 4: "(end)",
                     6: "after the end"}, indent=41)
    assert bt.text_message(tty) == "Pick up what?\nWeapons\na - a dagger\n(end)"


@pytest.mark.parametrize("marker", ["--More--", "(1 of 2)"])
def test_a_page_reads_down_to_its_more_or_page_counter(marker):
    tty = _terminal({0: "Things that are here:", 1: "a dagger", 2: marker, 3: "junk"}, indent=30)
    assert bt.text_message(tty) == f"Things that are here:\na dagger\n{marker}"


def test_the_end_of_game_list_ends_at_its_second_blank_row():
    tty = _terminal({0: "You made the top ten list!", 1: " No  Points     Name",
                     2: "  1       8  Agent-Kni died", 5: "later text"})
    assert bt.text_message(tty) == \
        "You made the top ten list!\nNo  Points     Name\n1       8  Agent-Kni died\n"


def test_more_pressed_for_the_agent_joins_the_pages():
    assert bt.more_pages(["You hit the newt.--More--", "The newt dies."]) == \
        "You hit the newt.\nThe newt dies."
    assert bt.more_pages(["Hello."]) == "Hello."


# ------------------------------------------------------------------ layout
def test_hybrid_layout_is_balrogs():
    glyphs, blstats = _screen()
    glyphs[5, 11] = _monster("newt")
    tty = _terminal({0: "Hello.", 6: "   @f", 22: "Agent the Footpad  St:13"})
    letters = np.zeros(55, np.uint8)
    strs = np.zeros((55, 80), np.uint8)
    letters[0] = ord("a")
    strs[0, :8] = np.frombuffer(b"a dagger", np.uint8)
    obs = {"glyphs": glyphs, "blstats": blstats, "tty_chars": tty,
           "tty_cursor": np.array([6, 10]), "inv_strs": strs, "inv_letters": letters}
    long_term, short_term = bt.hybrid_text(obs, "Hello.")
    screen = "".join(bytes(r).decode() + "\n" for r in tty[1:])   # 23 whole rows
    assert long_term == ("message:\nHello.\n\nlanguage observation:\nnewt adjacent east\n\n"
                         "cursor:\nYourself a human\n(x=10, y=6)\n\nmap:\n" + screen + "\n")
    assert short_term == "inventory:\na: a dagger\n"


# --------------------------------------------------------------------- envs
def test_envs_offer_balrogs_text_and_the_protocol_asks_for_it():
    for family in ("nethack", "minihack"):
        assert ENV_SETTINGS[family]["text_style"] == "balrog"
    env = dungeonbench_gym.make("NetHack-v0", text=True, **ENV_SETTINGS["nethack"])
    _, info = env.reset(seed=4)
    long_term, short_term = info["text"]["long_term"], info["text"]["short_term"]
    heads = [line for line in long_term.split("\n")
             if line in ("message:", "language observation:", "cursor:", "map:")]
    assert heads == ["message:", "language observation:", "cursor:", "map:"]
    assert "welcome to NetHack" in long_term and "Dlvl:1" in long_term   # the status rows
    assert short_term.startswith("inventory:\na: ")
    for _ in range(5):
        env.step(int(np.flatnonzero(env.unwrapped.action_masks())[0]))
    copy = pickle.loads(pickle.dumps(env.unwrapped))
    assert copy._game_text() == env.unwrapped._game_text()
    with pytest.raises(ValueError, match="text_style"):
        dungeonbench_gym.make("MiniHack-Corridor-R3-v0", text_style="plain")
