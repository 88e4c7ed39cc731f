"""The NetHack / MiniHack per-option rows (`options`) and ids (`option_ids`).

What is asserted comes from the game: an item letter names the inventory item NLE lists
under that letter (NLE's inv_letters[k] is the letter of inv_strs[k], inv_oclasses[k] its
object class, inv_glyphs[k] its glyph), a menu entry is the line "x - text" and "x + text"
once selected, and the direction keys are NetHack's (NLE's CompassDirection).
"""

import copy
import hashlib
import os
import pickle
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("nle")

from nle import nethack  # noqa: E402
from nle.nethack.actions import CompassDirection, MiscDirection  # noqa: E402

import dungeonbench_gym  # noqa: E402
from dungeonbench_gym.games.nethack import option_features as of  # noqa: E402
from dungeonbench_gym.games.nethack.commands import COMMANDS, INDEX, LETTER_INDEX  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
import nle_option_identity as identity  # noqa: E402

CLASS_COLS = slice(of.COL["class_illegal"], of.COL["class_venom"] + 1)
ROLE_COLS = slice(0, len(of.ROLES))


def _class(row) -> int:
    """The object class a row shows (NetHack's class number), 0 for none."""
    hot = np.flatnonzero(row[CLASS_COLS])
    assert len(hot) <= 1
    return int(hot[0]) + 1 if len(hot) else 0


def _role(row) -> str:
    hot = np.flatnonzero(row[ROLE_COLS])
    assert len(hot) == 1, hot
    return of.ROLES[int(hot[0])]


def _play(env, *labels):
    obs = None
    for label in labels:
        obs, _, term, trunc, info = env.step(INDEX[label])
        assert not info["invalid_action"], label
        assert not (term or trunc)
    return obs


@pytest.fixture
def valkyrie():
    env = dungeonbench_gym.make("NetHack-Valkyrie-v0").unwrapped
    env.reset(seed=0)
    yield env
    env.close()


# ------------------------------------------------------------------ the vocabulary
def test_spaces_and_id_ranges():
    env = dungeonbench_gym.make("NetHack-v0").unwrapped
    space = env.observation_space
    assert space["options"].shape == (117, of.N_FEATURES) and space["options"].dtype == np.float32
    assert space["option_ids"].shape == (117, 2) and space["option_ids"].dtype == np.int32
    assert int(space["option_ids"].high.max()) == of.VOCAB - 1 <= 10_000
    assert of.MAX_GLYPH == nethack.MAX_GLYPH   # every glyph fits its range
    # key ids, glyph ids and text buckets do not overlap
    assert of.key_id(len(of.ROLES) - 1, 116) < of.GLYPH_BASE
    assert of.GLYPH_BASE + nethack.MAX_GLYPH - 1 < of.TEXT_BASE
    assert of.TEXT_BASE + of.TEXT_BUCKETS - 1 == of.VOCAB - 1 and of.TEXT_BUCKETS > 1000
    assert len(of.COLUMNS) == len(set(of.COLUMNS)) == of.N_FEATURES
    env.close()


# ------------------------------------------------------------------ identity over random play
def test_identical_rows_are_rare_over_thousands_of_decisions():
    bad = []

    def check(env, obs):
        legal = env._mask.astype(bool)
        if not env.observation_space.contains(obs):
            bad.append(("outside its space", env._prompt))
        rows, ids = obs["options"], obs["option_ids"]
        if rows[~legal].any() or ids[~legal].any():
            bad.append(("a masked index has a row", env._prompt))
        for i in np.flatnonzero(legal):
            role = of.ROLE[_role(rows[i])]
            if ids[i, 0] != of.key_id(role, i):
                bad.append(("key id", env._prompt, i))

    runs = [("NetHack-v0", 900), ("NetHack-Wizard-v0", 500), ("MiniHack-Quest-Easy-v0", 500),
            ("MiniHack-Corridor-R3-v0", 300)]
    total = {}
    for env_id, n in runs:
        m = identity.measure(env_id, n, seed=3, check=check)
        m.pop("examples")
        for k, v in m.items():
            total[k] = total.get(k, 0) + v
    assert not bad, bad[:5]
    assert total["decisions"] >= 2000
    assert total.get("decision_item", 0) >= 50 and total.get("decision_menu", 0) >= 30, total
    assert total.get("new_dec", 0) / total["decisions"] < 0.01, total
    # the same without an item letter's or menu entry's own key id: the row and the object
    # id alone tell the things they name apart (the letter is no description of its item)
    assert total.get("obj_dec", 0) / total["decisions"] < 0.01, total
    named = total["decision_item"] + total["decision_menu"]
    assert total.get("obj_dec_item", 0) + total.get("obj_dec_menu", 0) < 0.01 * named, total
    # the old observation cannot tell item letters apart: the measure does bite
    assert total["old_dec"] >= total["decision_menu"]


# ------------------------------------------------------------------ item questions
def _inventory_slot(env, letter):
    letters = env._obs["inv_letters"]
    slot = np.flatnonzero(letters == ord(letter))
    assert len(slot) == 1, letter
    return int(slot[0])


@pytest.mark.parametrize("command", ["eat", "wield", "drop", "throw"])
def test_item_question_rows_show_each_letters_inventory_item(valkyrie, command):
    obs = _play(valkyrie, command)
    assert valkyrie._prompt.decision == "item"
    letters = [i for i in valkyrie._prompt.legal if COMMANDS[i].kind == "letter"]
    assert letters
    for i in letters:
        letter = chr(COMMANDS[i].key)
        row, ids = obs["options"][i], obs["option_ids"][i]
        if letter == "*":
            assert _role(row) == "item_list" and _class(row) == 0 and ids[1] == 0
            continue
        if letter == "-":
            assert _role(row) == "hands" and _class(row) == 0 and ids[1] == 0
            continue
        slot = _inventory_slot(valkyrie, letter)
        assert _role(row) == "item" and row[of.COL["in_inventory"]] == 1
        assert _class(row) == int(valkyrie._obs["inv_oclasses"][slot])
        assert ids[1] == of.GLYPH_BASE + int(valkyrie._obs["inv_glyphs"][slot])


def test_valkyrie_start_inventory_reads_as_netHack_says(valkyrie):
    # a +1 long sword (weapon in hand), a +0 dagger (alternate weapon; not wielded),
    # an uncursed +3 small shield (being worn), 2 uncursed food rations
    obs = _play(valkyrie, "drop")
    row = {ch: obs["options"][LETTER_INDEX[ch]] for ch in "abcd"}
    col = of.COL
    assert _class(row["a"]) == nethack.WEAPON_CLASS and row["a"][col["wielded"]] == 1
    assert row["a"][col["enchant"]] == pytest.approx(0.1) and row["a"][col["enchant_known"]] == 1
    assert _class(row["b"]) == nethack.WEAPON_CLASS and row["b"][col["readied"]] == 1
    assert row["b"][col["wielded"]] == 0 and row["b"][col["enchant_known"]] == 1
    assert row["b"][col["enchant"]] == 0
    assert _class(row["c"]) == nethack.ARMOR_CLASS and row["c"][col["worn"]] == 1
    assert row["c"][col["uncursed"]] == 1 and row["c"][col["enchant"]] == pytest.approx(0.3)
    assert _class(row["d"]) == nethack.FOOD_CLASS and row["d"][col["uncursed"]] == 1
    assert row["d"][col["quantity"]] == pytest.approx(np.log2(3) / 16)
    assert row["a"][col["quantity"]] == pytest.approx(np.log2(2) / 16)
    # two weapons of one class still differ: their glyphs (long sword, dagger) and words
    assert obs["option_ids"][LETTER_INDEX["a"], 1] != obs["option_ids"][LETTER_INDEX["b"], 1]
    # letters the question does not list are masked: zero rows
    assert not obs["options"][LETTER_INDEX["e"]].any()


# ------------------------------------------------------------------ menus
def _pile_menu(env):
    """Drop the dagger and the food rations, then pick up: "Pick up what?"."""
    for letter in "bd":
        _play(env, "drop", f"choose {letter}")
        while env._prompt.decision == "more":
            _play(env, "continue")
    obs = _play(env, "pick up")
    assert env._prompt.decision == "menu" and "Pick up what" in env._prompt.question
    return obs


def test_menu_entries_have_rows_and_show_selection(valkyrie):
    obs = _pile_menu(valkyrie)
    entries = {e.letter: e for e in of.menu_entries(valkyrie._obs["tty_chars"])}
    assert len(entries) == 2
    legal = set(valkyrie._prompt.legal)
    by_text = {}
    for letter, entry in entries.items():
        i = LETTER_INDEX[letter]
        assert i in legal
        row = obs["options"][i]
        assert _role(row) == "menu_entry" and row[of.COL["item_line"]] == 1
        assert row[of.COL["selected"]] == 0
        by_text[entry.text] = row
        assert obs["option_ids"][i, 1] >= of.GLYPH_BASE
    # the dagger under "Weapons", the rations under "Comestibles"
    dagger = next(r for t, r in by_text.items() if "dagger" in t)
    rations = next(r for t, r in by_text.items() if "food ration" in t)
    assert _class(dagger) == nethack.WEAPON_CLASS and _class(rations) == nethack.FOOD_CLASS
    assert rations[of.COL["quantity"]] == pytest.approx(np.log2(3) / 16)
    # letters that are not entries: masked, zero rows, unlike every entry's row
    for i in LETTER_INDEX.values():
        if chr(COMMANDS[i].key) not in entries:
            assert i not in legal and not obs["options"][i].any()
    rows = [obs["options"][LETTER_INDEX[ch]] for ch in entries]
    assert not np.array_equal(rows[0], rows[1])
    # select the first entry: only its "selected" column changes; again: deselected
    first = sorted(entries)[0]
    i = LETTER_INDEX[first]
    before = obs["options"].copy()
    after = _play(valkyrie, f"choose {first}")["options"]
    assert after[i, of.COL["selected"]] == 1
    changed = np.argwhere(after != before)
    assert changed.tolist() == [[i, of.COL["selected"]]]
    again = _play(valkyrie, f"choose {first}")["options"]
    assert np.array_equal(again, before)


@pytest.mark.parametrize("clone", [lambda e: pickle.loads(pickle.dumps(e)), copy.deepcopy],
                         ids=["pickle", "deepcopy"])
def test_rows_and_ids_survive_pickle_and_deepcopy(valkyrie, clone):
    _pile_menu(valkyrie)
    first = min(e.letter for e in of.menu_entries(valkyrie._obs["tty_chars"]))
    twin = clone(valkyrie)
    # a selection in the menu, the pick-up, an item question, a direction question
    for label in (f"choose {first}", "continue", "escape", "eat", "escape", "open", "escape"):
        a = valkyrie.step(INDEX[label])[0]
        b = twin.step(INDEX[label])[0]
        for key in ("options", "option_ids", "action_mask", "decision", "glyphs"):
            assert np.array_equal(a[key], b[key]), (label, key)


# ------------------------------------------------------------------ directions
def test_direction_rows_follow_nethacks_keys(valkyrie):
    obs = _play(valkyrie, "open")
    assert valkyrie._prompt.decision == "direction"
    expected = {chr(CompassDirection.N): (0, -1, 0), chr(CompassDirection.S): (0, 1, 0),
                chr(CompassDirection.E): (1, 0, 0), chr(CompassDirection.W): (-1, 0, 0),
                chr(CompassDirection.NE): (1, -1, 0), chr(CompassDirection.NW): (-1, -1, 0),
                chr(CompassDirection.SE): (1, 1, 0), chr(CompassDirection.SW): (-1, 1, 0),
                chr(MiscDirection.UP): (0, 0, -1), chr(MiscDirection.DOWN): (0, 0, 1),
                chr(MiscDirection.WAIT): (0, 0, 0)}
    assert expected["h"] == (-1, 0, 0) and expected["j"] == (0, 1, 0)   # h west, j south
    assert expected["k"] == (0, -1, 0) and expected["l"] == (1, 0, 0)   # k north, l east
    assert expected["y"] == (-1, -1, 0) and expected["n"] == (1, 1, 0)
    seen = set()
    for i in valkyrie._prompt.legal:
        if COMMANDS[i].kind != "direction":
            continue
        row = obs["options"][i]
        assert _role(row) == "direction"
        got = tuple(int(row[of.COL[c]]) for c in ("dx", "dy", "dz"))
        assert got == expected[chr(COMMANDS[i].key)], COMMANDS[i].label
        seen.add(got)
    assert len(seen) == 11


# ------------------------------------------------------------------ across processes
_DIGEST = """
import hashlib, sys
sys.path.insert(0, {bench!r})
import numpy as np
import nle_option_identity as identity
digest = hashlib.sha256()
def check(env, obs):
    digest.update(obs["option_ids"].tobytes()); digest.update(obs["options"].tobytes())
identity.measure("NetHack-Wizard-v0", 400, seed=5, check=check)
print(digest.hexdigest())
"""


def test_ids_and_rows_are_the_same_in_another_process():
    digest = hashlib.sha256()

    def check(env, obs):
        digest.update(obs["option_ids"].tobytes())
        digest.update(obs["options"].tobytes())

    m = identity.measure("NetHack-Wizard-v0", 400, seed=5, check=check)
    assert m.get("decision_item", 0) > 0
    env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONHASHSEED="12345")
    out = subprocess.run([sys.executable, "-c", _DIGEST.format(bench=str(ROOT / "benchmarks"))],
                         capture_output=True, text=True, env=env, cwd=str(ROOT), timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().splitlines()[-1] == digest.hexdigest()
