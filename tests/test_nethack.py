"""NetHack through NLE: progression tables, prompts on real game states, text,
the stall rule, and a scripted agent whose progression rises in a real game."""

import pickle

import numpy as np
import pytest

pytest.importorskip("nle")

import dungeonbench_gym  # noqa: E402
from dungeonbench_gym.games.nethack.agent import DescendAgent  # noqa: E402
from dungeonbench_gym.games.nethack.commands import COMMANDS, INDEX  # noqa: E402
from dungeonbench_gym.games.nethack.language import offset_words  # noqa: E402
from dungeonbench_gym.games.nethack.progression import (  # noqa: E402
    ASCENDED, ASTRAL_PLANE, DUNGEON_LEVEL, EXPERIENCE_LEVEL, step_progress)
from dungeonbench_gym.games.nethack import option_features  # noqa: E402
from dungeonbench_gym.games.nethack.prompts import (  # noqa: E402
    ITEM_LIST_TITLE, menu_entries, read_prompt)


# ------------------------------------------------------------------ tables
def test_progression_tables_have_balrogs_shape_and_values():
    assert len(DUNGEON_LEVEL) == 50 and len(EXPERIENCE_LEVEL) == 30
    assert all(a <= b for a, b in zip(DUNGEON_LEVEL, DUNGEON_LEVEL[1:]))
    assert all(a <= b for a, b in zip(EXPERIENCE_LEVEL, EXPERIENCE_LEVEL[1:]))
    assert DUNGEON_LEVEL[0] == EXPERIENCE_LEVEL[0] == 0.0
    assert step_progress(1, 1) == 0.0
    assert step_progress(2, 1) == pytest.approx(0.015392269075361172)
    assert step_progress(1, 10) == pytest.approx(0.17909953770432294)
    assert step_progress(10, 10) == max(DUNGEON_LEVEL[9], EXPERIENCE_LEVEL[9])
    assert step_progress(60, 40) == max(DUNGEON_LEVEL[-1], EXPERIENCE_LEVEL[-1])  # clamped
    assert step_progress(0, 0) == 0.0   # after the game: NLE zeroes its status
    assert step_progress(1, 1, astral=True) == ASTRAL_PLANE
    assert step_progress(1, 1, ascended=True) == ASCENDED == 1.0


# ------------------------------------------------------ prompts, synthetic
def _screen(top="", lines=(), misc=(0, 0, 0), message=None):
    tty = np.full((24, 80), ord(" "), np.uint8)
    for row, text in enumerate([top, *lines]):
        tty[row, :len(text)] = np.frombuffer(text.encode(), np.uint8)
    msg = np.zeros(256, np.uint8)
    text = (top if message is None else message).encode()
    msg[:len(text)] = np.frombuffer(text, np.uint8)
    return np.array(misc), msg, tty


def _labels(prompt):
    return sorted(COMMANDS[i].label for i in prompt.legal)


def test_item_question_offers_listed_letters_ranges_gold_and_hands():
    p = read_prompt(*_screen("What do you want to wield? [- $a-cf or ?*]", misc=(1, 0, 0)))
    assert p.decision == "item"
    assert _labels(p) == sorted(["choose -", "choose $", "choose a", "choose b", "choose c",
                                 "choose f", "choose *", "escape"])


def test_yes_no_questions_offer_exactly_their_answers():
    p = read_prompt(*_screen("Really attack the guard? [yn] (n)", misc=(1, 0, 0)))
    assert p.decision == "yes_no" and _labels(p) == ["escape", "no", "yes"]
    p = read_prompt(*_screen("Dip it into the fountain? [ynq] (q)", misc=(1, 0, 0)))
    assert _labels(p) == ["escape", "no", "quit", "yes"]
    p = read_prompt(*_screen("Which ring-finger, Right or Left? [rl]", misc=(1, 0, 0)))
    assert _labels(p) == ["choose l", "choose r", "escape"]


def test_direction_more_text_and_command_states():
    p = read_prompt(*_screen("In what direction?", misc=(1, 0, 0)))
    assert p.decision == "direction" and len(p.legal) == 12   # 8 + up, down, self + escape
    p = read_prompt(*_screen("You hear a door open.--More--", misc=(1, 0, 1),
                             message="You hear a door open."))
    assert p.decision == "more" and _labels(p) == ["continue", "escape"]   # --More-- first
    p = read_prompt(*_screen("Call a scroll labeled FOO:", misc=(0, 1, 0)))
    assert p.decision == "text" and _labels(p) == ["escape"]
    p = read_prompt(*_screen("", misc=(0, 0, 0)))
    assert p.decision == "command" and all(COMMANDS[i].kind == "command" for i in p.legal)


def test_menus_offer_entries_selected_or_not_and_page_keys():
    lines = ["          Pick up what?", "", "          Weapons", "          a + a dagger",
             "          Comestibles", "          b - a food ration", "          (1 of 2)"]
    p = read_prompt(*_screen(lines[0], lines[1:], misc=(0, 0, 1), message=""))
    assert p.decision == "menu"
    assert _labels(p) == ["choose a", "choose b", "continue", "escape", "next page"]
    listing = ["          Weapons", "          a - a long sword (weapon in hand)",
               "          (end)"]
    p = read_prompt(*_screen(listing[0], listing[1:], misc=(0, 0, 1), message=""))
    assert p.decision == "more" and _labels(p) == ["continue", "escape"]   # nothing to pick


def _window(*lines, indent=20):
    """A menu window drawn over the map from row 0, as NetHack's tty draws one."""
    rows = [" " * indent + line if line else "" for line in lines]
    return _screen(rows[0], rows[1:], misc=(0, 0, 1), message="")


def test_inventory_listing_is_shown_unless_an_item_questions_star_opened_it():
    # 'i' and the list '*' opens in "What do you want to eat? [d or ?*]" are drawn alike
    # (invent.c display_pickinv: no title, class headings); only the latter picks one
    listing = _window("Weapons", "a - a +1 long sword (weapon in hand)", "Comestibles",
                      "d - 2 uncursed food rations", "(end)", indent=31)
    assert read_prompt(*listing).decision == "more"
    p = read_prompt(*listing, item_list=True)
    assert p.decision == "menu" and p.question == ITEM_LIST_TITLE
    assert _labels(p) == ["choose a", "choose d", "continue", "escape"]
    # wield's list adds bare hands under "Miscellaneous" ("- - your bare hands")
    wield = _window("Miscellaneous", "- - your bare hands", "Weapons",
                    "a - a +1 long sword (weapon in hand)", "(end)")
    assert _labels(read_prompt(*wield, item_list=True)) == [
        "choose -", "choose a", "continue", "escape"]


def test_titled_menus_without_a_question_mark_take_a_selection():
    # spell.c: 'Z' opens "Choose which spell to cast" (PICK_ONE), no '?' in its title
    spells = _window("Choose which spell to cast", "",
                     "    Name                 Level Category     Fail Retention",
                     "a - force bolt             1   attack         0%      100%",
                     "b - remove curse           3   clerical      77%      100%", "(end)")
    p = read_prompt(*spells)
    assert p.decision == "menu" and p.question == "Choose which spell to cast"
    assert _labels(p) == ["choose a", "choose b", "continue", "escape"]
    # weapon.c #enhance: "Pick a skill to advance:" (PICK_ONE; only advanceable skills
    # carry letters)
    enhance = _window("Pick a skill to advance:", "", " Fighting Skills",
                      "a -  bare handed combat [Basic]", "     two weapon combat [Unskilled]",
                      "(end)")
    assert _labels(read_prompt(*enhance)) == ["choose a", "continue", "escape"]


@pytest.mark.parametrize("title", [
    "Contents of the large box:",            # display_cinventory (PICK_NONE)
    "Contents of the purple worm's stomach:",  # look_here while engulfed
    "Things that are buried here:",          # display_binventory
    "The newt's possessions:",               # display_minventory (probing)
    "Fido's armament:"])
def test_titled_object_listings_nethack_only_shows_stay_more(title):
    p = read_prompt(*_window(title, "", "Weapons", "a - a dagger", "(end)"))
    assert p.decision == "more" and _labels(p) == ["continue", "escape"]


# ------------------------------------------------- prompts on real states
@pytest.fixture(scope="module")
def valkyrie():
    env = dungeonbench_gym.make("NetHack-Valkyrie-v0", text=True).unwrapped
    env.reset(seed=0)
    return env


def _after(env, *labels):
    copy = pickle.loads(pickle.dumps(env))
    info = None
    for label in labels:
        _, _, _, _, info = copy.step(INDEX[label])
        assert not info["invalid_action"], label
    return copy, info


def _message(env):
    return env._obs["message"].tobytes().split(b"\0", 1)[0].decode()


def _each_answer_is_accepted(env, info):
    """Every legal answer, tried on its own copy, leaves the question without
    NetHack complaining that the key made no sense."""
    asked = (env._prompt.decision, env._prompt.question)
    for option in info["options"]:
        after, info_after = _after(env, option.label)
        text = _message(after)
        assert "strange direction" not in text and "You don't have that object" not in text
        assert (after._prompt.decision, after._prompt.question) != asked, option.label
        assert not info_after["invalid_action"]


def test_real_item_prompt(valkyrie):
    # the Valkyrie's only food is d (2 food rations): NetHack asks "[d or ?*]"
    env, info = _after(valkyrie, "eat")
    assert info["decision"] == "item" and "[d or ?*]" in env._prompt.question
    assert sorted(o.label for o in info["options"]) == ["choose *", "choose d", "escape"]
    _each_answer_is_accepted(env, info)
    eaten, _ = _after(env, "choose d")
    assert "food ration" in _message(eaten) or eaten._prompt.decision != "item"


def test_real_yes_no_prompt(valkyrie):
    env, info = _after(valkyrie, "pray")
    assert info["decision"] == "yes_no" and "[yn]" in env._prompt.question
    assert sorted(o.label for o in info["options"]) == ["escape", "no", "yes"]
    _each_answer_is_accepted(env, info)


def test_real_direction_prompt(valkyrie):
    env, info = _after(valkyrie, "close")
    assert info["decision"] == "direction"
    assert {o.label for o in info["options"]} == {
        "escape", *(f"direction {d}" for d in ("north", "east", "south", "west", "northeast",
                                               "southeast", "southwest", "northwest", "up",
                                               "down", "self"))}
    _each_answer_is_accepted(env, info)


def test_real_more_prompt_then_the_question_behind_it(valkyrie):
    env, info = _after(valkyrie, "fire")   # nothing quivered: a message, then a question
    assert info["decision"] == "more"
    assert sorted(o.label for o in info["options"]) == ["continue", "escape"]
    _each_answer_is_accepted(env, info)
    asked, info = _after(env, "continue")
    assert info["decision"] == "item" and "want to throw" in asked._prompt.question


def test_real_menu_select_and_confirm(valkyrie):
    # drop the dagger and the food, then pick up: NetHack shows a menu of both
    env, info = _after(valkyrie, "drop", "choose b", "drop", "choose d", "pick up")
    if info["decision"] == "more":   # a monster's message may come first
        env, info = _after(env, "continue")
    assert info["decision"] == "menu" and "Pick up what?" in env._prompt.question
    assert sorted(o.label for o in info["options"]) == ["choose a", "choose b", "continue",
                                                        "escape"]
    picked, info = _after(env, "choose a")
    assert info["decision"] == "menu"   # the entry is now marked; still choosing
    picked, info = _after(picked, "continue")
    inventory = picked._obs["inv_strs"].tobytes()
    assert b"dagger" in inventory and picked._prompt.decision != "menu"


def test_real_item_list_from_star_is_a_menu_to_pick_from(valkyrie):
    # "What do you want to eat? [d or ?*]", then '*': every item, one to pick
    env, info = _after(valkyrie, "eat", "choose *")
    assert info["decision"] == "menu" and env._prompt.question == ITEM_LIST_TITLE
    assert sorted(o.label for o in info["options"]) == [
        "choose a", "choose b", "choose c", "choose d", "continue", "escape"]
    # each entry row names the inventory item with that letter
    rows, ids = env._observation()["options"], env._observation()["option_ids"]
    d = COMMANDS.index(next(c for c in COMMANDS if c.label == "choose d"))
    assert rows[d, option_features.COL["class_food"]] == 1
    assert rows[d, option_features.COL["in_inventory"]] == 1
    slot = list(env._obs["inv_letters"]).index(ord("d"))
    assert ids[d, 1] == option_features.GLYPH_BASE + int(env._obs["inv_glyphs"][slot])
    # a pickle taken with the list open reads it the same way
    copy = pickle.loads(pickle.dumps(env))
    assert copy._item_list and copy._prompt == env._prompt
    # picking the long sword answers the question with it: NetHack refuses to eat it
    refused, _ = _after(env, "choose a")
    assert "cannot eat" in _message(refused)
    # picking the food rations eats one, as answering "d" to the question would
    eaten, info = _after(env, "choose d")
    direct, _ = _after(valkyrie, "eat", "choose d")
    assert _message(eaten) == _message(direct) and "Never mind" not in _message(eaten)
    assert info["decision"] != "menu" and not eaten._item_list
    # escape closes the list and cancels the question
    cancelled, info = _after(env, "escape")
    assert info["decision"] == "command"


def test_inventory_shown_outside_an_item_question_stays_more(valkyrie):
    # 'i' is no option of ours, but a passthrough env sends any key: NetHack shows the
    # inventory (PICK_NONE), the same window as the '*' list, and nothing is picked from it
    env = dungeonbench_gym.make("NetHack-Valkyrie-v0", on_invalid="passthrough").unwrapped
    env.reset(seed=0)
    _, _, _, _, info = env.step(INDEX["choose i"])
    assert info["decision"] == "more" and menu_entries(env._obs["tty_chars"])


def test_real_spell_menu_casts_force_bolt():
    env = dungeonbench_gym.make("NetHack-Wizard-v0").unwrapped
    obs, _ = env.reset(seed=0)
    energy = int(obs["blstats"][14])
    obs, _, _, _, info = env.step(INDEX["cast"])
    assert info["decision"] == "menu" and env._prompt.question == "Choose which spell to cast"
    entries = {e.text.split("  ")[0]: e.letter for e in menu_entries(env._obs["tty_chars"])}
    letter = entries["force bolt"]
    index = INDEX[f"choose {letter}"]
    assert obs["action_mask"][index] == 1
    # the entry's row: a menu entry naming no object, with the spell's words; its id is
    # the spell's name, whatever its failure rate
    row = obs["options"][index]
    assert row[option_features.COL["role_menu_entry"]] == 1
    assert row[option_features.COL["item_line"]] == 0 and row[option_features.COL["in_inventory"]] == 0
    classes = [option_features.COL[f"class_{c}"] for c in option_features.OCLASS_NAMES]
    assert not row[classes].any()
    assert obs["option_ids"][index, 1] == option_features.text_id("force bolt")
    assert option_features.meanings(env._prompt, env._obs)[index].text == "force bolt"
    # force bolt asks a direction; answering it casts the spell (5 energy)
    _, _, _, _, info = env.step(index)
    assert info["decision"] == "direction"
    obs, _, _, _, info = env.step(INDEX["direction east"])
    assert int(obs["blstats"][14]) == energy - 5


# ---------------------------------------------------- text, stall, metrics
def test_text_observation_lists_what_is_around_with_offsets(valkyrie):
    info = valkyrie._info(False)
    long_term, short_term = info["text"]["long_term"], info["text"]["short_term"]
    assert long_term.startswith("Message:") and "You see" in long_term
    assert "Map (@ is you):" in short_term and "@" in short_term and "Dlvl:1" in short_term
    assert "a: a +1 long sword (weapon in hand)" in short_term
    # the pet's line carries its true offset from the hero
    from nle import nethack
    glyphs = valkyrie._obs["glyphs"]
    hx, hy = valkyrie._hero()
    pets = [(x, y) for y, x in zip(*np.nonzero(np.vectorize(nethack.glyph_is_pet)(glyphs)))]
    assert pets
    px, py = pets[0]
    assert f": {offset_words(px - hx, py - hy)}" in long_term


def test_stall_limit_cuts_an_episode_whose_clock_stops():
    env = dungeonbench_gym.make("NetHack-Valkyrie-v0").unwrapped
    env.reset(seed=0)
    for step in range(1, 151):
        _, _, terminated, truncated, info = env.step(INDEX["escape"])  # no game time passes
        if truncated:
            break
    assert step == 150 and truncated and not terminated


def test_descend_agent_raises_the_progression_in_a_real_game():
    env = dungeonbench_gym.make("NetHack-Valkyrie-v0")
    agent = DescendAgent()
    obs, info = env.reset(seed=1)
    agent.reset(env, 1)
    progress, deepest = [info["progress"]], 1
    for _ in range(3000):
        obs, _, terminated, truncated, info = env.step(agent.act(obs, info))
        progress.append(info["progress"])
        deepest = max(deepest, info["metrics"]["depth"])
        assert not info["invalid_action"]
        if terminated or truncated:
            break
    assert progress[0] == 0.0 and deepest >= 3
    assert all(a <= b for a, b in zip(progress, progress[1:]))   # a running maximum
    assert progress[-1] >= DUNGEON_LEVEL[deepest - 1] > 0


def test_a_death_is_reported_with_its_cause():
    env = dungeonbench_gym.make("NetHack-v0")
    agent = DescendAgent()
    obs, info = env.reset(seed=0)
    agent.reset(env, 0)
    for _ in range(2000):
        obs, _, terminated, truncated, info = env.step(agent.act(obs, info))
        if terminated or truncated:
            break
    assert terminated and info["metrics"]["death"].startswith("died (")
    assert info["metrics"]["turns"] > 0 and info["metrics"]["depth"] >= 1  # the last status


def test_a_pickled_env_continues_the_same_game():
    env = dungeonbench_gym.make("NetHack-v0").unwrapped
    env.reset(seed=7)
    rng = np.random.default_rng(0)
    for _ in range(40):
        env.step(int(rng.choice(env.legal_actions())))
    copy = pickle.loads(pickle.dumps(env))
    for _ in range(40):
        action = int(rng.choice(env.legal_actions()))
        a = env.step(action)
        b = copy.step(action)
        assert (a[0]["glyphs"] == b[0]["glyphs"]).all() and a[1:4] == b[1:4]


def test_text_mode_plays_the_same_game_as_tensor_mode():
    # NLE's screen descriptions would draw random numbers; our names must not
    tensor = dungeonbench_gym.make("NetHack-v0").unwrapped
    text = dungeonbench_gym.make("NetHack-v0", text=True).unwrapped
    tensor.reset(seed=0)
    text.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(1500):
        move = int(rng.integers(0, 8))
        option = move if tensor._mask[move] else INDEX["escape"]
        a, b = tensor.step(option), text.step(option)
        assert (a[0]["glyphs"] == b[0]["glyphs"]).all() and a[1:4] == b[1:4]
        if a[2] or a[3]:
            break


def test_ansi_render_is_the_terminal():
    env = dungeonbench_gym.make("NetHack-Valkyrie-v0", render_mode="ansi")
    env.reset(seed=0)
    screen = env.render().splitlines()
    assert len(screen) == 24 and "@" in "".join(screen) and screen[23].startswith("Dlvl:1")


def test_every_command_is_one_nethack_knows(valkyrie):
    """Each command option, tried on its own copy of a fresh game, gets a real
    answer from NetHack: never "Unknown command"."""
    base = pickle.loads(pickle.dumps(valkyrie))
    commands = [o for o in base._info(False)["options"] if o.kind == "command"]
    assert len(commands) == 43
    for option in commands:
        after, info = _after(base, option.label)
        screen = after._obs["tty_chars"].tobytes()
        assert b"Unknown command" not in screen, option.label
        assert not info["invalid_action"]


def test_text_shows_a_menu_drawn_over_the_map():
    # the map text leaves the menu window out: the short-term text shows it as drawn
    env = dungeonbench_gym.make("NetHack-Wizard-v0", text=True)
    env.reset(seed=0)
    short_term = env.step(INDEX["cast"])[4]["text"]["short_term"]
    menu = short_term.split("Menu:\n", 1)[1].split("\nMap (@ is you):", 1)[0].splitlines()
    assert menu[0] == "Choose which spell to cast" and menu[-1] == "(end)"
    assert any(line.startswith("a - force bolt") and "0%" in line for line in menu)
    assert "Menu:" not in env.step(INDEX["escape"])[4]["text"]["short_term"]
