"""Offline Boxoban: rules, solver, seeded generator with tiers, level files, cache."""

import pytest

from dungeonbench_gym.core.cache import cache_dir, write_text_atomic
from dungeonbench_gym.core.errors import FileFormatError
from dungeonbench_gym.games.minihack import boxoban as bx

TIER_SEEDS = range(8)


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    """No test reads the user's official levels or writes to the real cache."""
    monkeypatch.setenv("DUNGEONBENCH_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("DUNGEONBENCH_BOXOBAN_DIR", raising=False)


@pytest.fixture(scope="module")
def tier_levels():
    """Eight generated levels per tier, shared: each takes about a second."""
    return {tier: [bx.generate_level(seed, tier) for seed in TIER_SEEDS] for tier in bx.TIERS}


# ----------------------------------------------------------------------------- rules

def test_push_moves_box_and_player():
    board = bx.move(bx.parse_board(["#####", "#@$ #", "#####"]), "r")
    assert bx.render_board(board) == ("#####", "# @$#", "#####")


def test_cannot_push_two_boxes_or_into_a_wall():
    two = bx.parse_board(["######", "#@$$ #", "######"])
    assert bx.move(two, "r") == two
    walled = bx.parse_board(["####", "#@$#", "####"])
    assert bx.move(walled, "r") == walled
    assert bx.move(walled, "u") == walled  # walking into a wall


def test_goals_render_and_solved():
    board = bx.parse_board(["######", "#@$. #", "######"])
    assert not bx.is_solved(board)
    board = bx.move(board, "r")
    assert bx.render_board(board) == ("######", "# @* #", "######")
    assert bx.is_solved(board)
    board = bx.move(board, "r")  # box pushed off the goal again; player stands on it
    assert bx.render_board(board) == ("######", "#  +$#", "######")
    assert not bx.is_solved(board)


def test_parse_rejects_bad_levels():
    with pytest.raises(ValueError, match="exactly one player"):
        bx.parse_board(["####", "#$.#", "####"])
    with pytest.raises(ValueError, match="unknown character"):
        bx.parse_board(["####", "#@x#", "####"])


# ----------------------------------------------------------------------------- solver

@pytest.mark.parametrize("rows, pushes", [
    (("#####", "#@$.#", "#####"), 1),
    (("#######",
      "#.    #",
      "#  $  #",
      "#  @  #",
      "#######"), 3),
    (("#######",
      "#     #",
      "# $$  #",
      "#@ .. #",
      "#######"), 4),  # box 2 must go round box 1: 1 + 3 pushes
])
def test_solver_finds_fewest_pushes(rows, pushes):
    solution = bx.solve(rows)
    assert solution is not None and solution.pushes == pushes
    assert set(solution.moves) <= set("udlr")
    assert bx.is_solved(bx.replay(rows, solution.moves))


def _fewest_moves_by_brute_force(rows) -> int:
    """Breadth-first search over whole positions, one player move per step: the rules'
    own answer to "how few moves solve this level"."""
    start = bx.parse_board(rows)
    seen, frontier, moves = {start}, [start], 0
    while frontier:
        if any(bx.is_solved(board) for board in frontier):
            return moves
        following = []
        for board in frontier:
            for letter in "udlr":
                after = bx.move(board, letter)
                if after not in seen:
                    seen.add(after)
                    following.append(after)
        frontier, moves = following, moves + 1
    raise AssertionError("unsolvable")


@pytest.mark.parametrize("rows", [
    ("#######",
     "#.    #",
     "#  $  #",
     "#  @  #",
     "#######"),
    ("#######",
     "#     #",
     "# $$  #",
     "#@ .. #",
     "#######"),
    ("########",
     "#@     #",
     "# $ #$ #",
     "#  .  .#",
     "########"),
    # the fewest-push plans here walk further than needed: 22 moves against 13
    ("#######",
     "# .   #",
     "##$$#@#",
     "#.    #",
     "#######"),
    ("#######",
     "# ..$ #",
     "##@ $ #",
     "##    #",
     "#######"),
])
def test_fewest_moves_solver_matches_brute_force(rows):
    solution = bx.solve_fewest_moves(rows)
    assert bx.is_solved(bx.replay(rows, solution.moves))
    assert len(solution.moves) == _fewest_moves_by_brute_force(rows)
    assert len(solution.moves) <= len(bx.solve(rows).moves)


def test_solver_gives_up_on_dead_and_capped_levels():
    corner = ("#####", "#$ .#", "# @ #", "#####")  # box in a non-goal corner
    assert bx.solve(corner) is None
    rows = ("#######", "#.    #", "#  $  #", "#  @  #", "#######")
    assert bx.solve(rows, max_effort=1) is None
    assert bx.solve(rows, max_effort=1000).effort > 1


# -------------------------------------------------------------------------- generator

def test_reverse_search_layers_are_exact_push_counts():
    """Every position reverse play reaches is solvable, in exactly its layer's pushes."""
    rows = ("#########",
            "#@      #",
            "#  ..   #",
            "#   #   #",
            "#       #",
            "#       #",
            "#########")
    board = bx.parse_board(rows)
    grid = bx._PushGrid(bx.Board(board.height, board.width, board.walls, board.goals,
                                 board.goals, board.player))
    layers = bx._positions_by_pushes(grid, 8)
    assert len(layers) == 9 and all(layers)
    for pushes, layer in enumerate(layers):
        for boxes, region in layer[:: max(1, len(layer) // 15)]:  # a spread of each layer
            start = grid.cell((region & -region).bit_length() - 1)
            level = bx.render_board(bx.Board(board.height, board.width, board.walls,
                                             board.goals,
                                             frozenset(map(grid.cell, bx._bits(boxes))), start))
            solution = bx.solve(level)
            assert solution is not None and solution.pushes == pushes, (level, pushes)


def test_generated_levels_are_wellformed_and_solved(tier_levels):
    for tier, levels in tier_levels.items():
        for level in levels:
            bx.check_boxoban_rows(level.rows)
            assert level.tier == tier
            board = bx.parse_board(level.rows)
            assert len(board.boxes) == len(board.goals) == bx.NUM_BOXES
            assert not board.boxes & board.goals  # as in DeepMind's levels: no box starts home
            assert board.player not in board.goals  # NetHack would not start the hero there
            assert bx.is_solved(bx.replay(level.rows, level.solution))
            assert bx.solve(level.rows).pushes == level.pushes
            assert bx._MIN_FLOOR <= 100 - len(board.walls)


def test_same_seed_same_level_and_seeds_differ(tier_levels):
    medium = tier_levels["medium"]
    assert bx.generate_level(3, "medium") == medium[3]
    assert len({level.rows for level in medium}) == len(medium)
    assert medium[0].rows != tier_levels["hard"][0].rows


def test_calibration_reproduces_deepminds_tiers():
    """boxoban_tiers.json: the candidates it keeps fall into the bins as DeepMind's
    levels do, and DeepMind's hard levels are longer than its medium ones."""
    tables = bx.tier_tables()
    for tier, table in tables.items():
        kept = [c * a for c, a in zip(table.candidates, table.accept)]
        tv = 0.5 * sum(abs(k / sum(kept) - o / sum(table.official))
                       for k, o in zip(kept, table.official))
        assert tv < 0.1, (tier, tv)   # the cap on candidates per level (see the script)
        assert sum(table.pushes) == sum(table.official)  # the same levels, counted twice
    def median_pushes(table):
        half, seen = sum(table.pushes) / 2, 0
        for pushes, count in enumerate(table.pushes):
            seen += count
            if seen >= half:
                return pushes
    assert median_pushes(tables["hard"]) > median_pushes(tables["medium"]) >= 12


def test_broken_calibration_file_names_the_field(tmp_path):
    import json

    data = json.loads(bx.TIERS_FILE.read_text())
    data["tiers"]["hard"]["accept"] = data["tiers"]["hard"]["accept"][:-1]
    path = tmp_path / "tiers.json"
    path.write_text(json.dumps(data))
    with pytest.raises(FileFormatError, match="tiers.hard.accept") as error:
        bx.tier_tables(str(path))
    assert "calibrate_boxoban.py" in str(error.value)
    data["generator_version"] = 1
    path.write_text(json.dumps(data))
    with pytest.raises(FileFormatError, match="generator_version"):
        bx.tier_tables(str(path))


def test_unknown_tier():
    with pytest.raises(ValueError, match="unknown Boxoban tier"):
        bx.generate_level(0, "easy")


# ------------------------------------------------------------------------ level files

LEVEL_A = (("##########", "#@$.     #") + ("#   $.   #",) * 3 + ("#        #",) * 4
           + ("##########",))
LEVEL_B = tuple(row.replace("@", " ").replace("#   $.", "#@  $.", 1) for row in LEVEL_A)


def test_level_file_round_trip(tmp_path):
    path = bx.write_level_file([LEVEL_A, LEVEL_B], tmp_path / "levels" / "000.txt")
    text = path.read_text()
    assert text.startswith("; 0\n##########\n") and "\n\n; 1\n" in text and text.endswith("#\n\n")
    assert bx.read_level_file(path) == [LEVEL_A, LEVEL_B]
    assert not [p for p in path.parent.iterdir() if p.name != "000.txt"]  # no temp files left


def test_read_tolerates_crlf_and_missing_final_blank_line(tmp_path):
    path = tmp_path / "x.txt"
    path.write_bytes(("; 7\r\n" + "\r\n".join(LEVEL_A)).encode())
    assert bx.read_level_file(path) == [LEVEL_A]


def test_read_rejects_short_level(tmp_path):
    path = tmp_path / "bad.txt"
    path.write_text("; 0\n" + "\n".join(LEVEL_A[:7]) + "\n\n")
    with pytest.raises(FileFormatError, match="7 rows"):
        bx.read_level_file(path)


# --------------------------------------------------------------- levels for an env seed

def test_official_dir_override(tmp_path, monkeypatch):
    root = tmp_path / "boxoban-levels"
    bx.write_level_file([LEVEL_A, LEVEL_B], root / "medium" / "train" / "000.txt")
    bx.write_level_file([LEVEL_B], root / "medium" / "train" / "001.txt")
    bx.write_level_file([LEVEL_B, LEVEL_A], root / "hard" / "000.txt")
    monkeypatch.setenv("DUNGEONBENCH_BOXOBAN_DIR", str(root))
    assert [bx.level_for_seed("medium", s) for s in range(4)] == [LEVEL_A, LEVEL_B, LEVEL_B,
                                                                  LEVEL_A]
    assert bx.level_for_seed("hard", 5) == LEVEL_A
    monkeypatch.delenv("DUNGEONBENCH_BOXOBAN_DIR")
    assert bx.level_for_seed("hard", 0, levels_dir=root) == LEVEL_B


def test_official_dir_errors_name_the_folder(tmp_path):
    (tmp_path / "medium").mkdir()
    with pytest.raises(FileFormatError, match="no levels") as empty:
        bx.level_for_seed("medium", 0, levels_dir=tmp_path)
    assert str(tmp_path / "medium") in str(empty.value) and "Fix:" in str(empty.value)
    with pytest.raises(FileFormatError, match="folder not found") as missing:
        bx.level_for_seed("hard", 0, levels_dir=tmp_path)
    assert "DUNGEONBENCH_BOXOBAN_DIR" in str(missing.value)


def test_generated_levels_are_cached(tmp_path, monkeypatch):
    rows = bx.level_for_seed("medium", 5)
    assert rows == bx.generate_level(5, "medium").rows
    [cached] = (tmp_path / "cache" / "boxoban" / "medium").glob("*.txt")
    assert bx.read_level_file(cached) == [rows]

    def no_generation(seed, tier):
        raise AssertionError("should have come from the cache")

    monkeypatch.setattr(bx, "generate_level", no_generation)
    assert bx.level_for_seed("medium", 5) == rows
    assert bx.prepare_levels("medium", [5], progress=False) == 0


def test_broken_cache_file_is_regenerated():
    bx.level_for_seed("medium", 1)
    [cached] = cache_dir("boxoban", "medium").glob("*.txt")
    cached.write_text("; 1\n#####\n")
    assert bx.level_for_seed("medium", 1) == bx.generate_level(1, "medium").rows
    assert bx.read_level_file(cached)[0] == bx.level_for_seed("medium", 1)


def test_prepare_levels_counts_new_levels():
    assert bx.prepare_levels("medium", range(2), progress=False) == 2
    assert bx.prepare_levels("medium", range(3), progress=False) == 1


def test_cache_dir_locations(tmp_path, monkeypatch):
    assert cache_dir("a", "b") == tmp_path / "cache" / "a" / "b"
    assert (tmp_path / "cache" / "a" / "b").is_dir()
    monkeypatch.delenv("DUNGEONBENCH_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache_dir("c") == tmp_path / "xdg" / "dungeonbench_gym" / "c"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert cache_dir("d") == tmp_path / "home" / ".cache" / "dungeonbench_gym" / "d"


def test_write_text_atomic_replaces(tmp_path):
    path = write_text_atomic(tmp_path / "f.txt", "one")
    write_text_atomic(path, "two")
    assert path.read_text() == "two"
    assert [p.name for p in tmp_path.iterdir()] == ["f.txt"]
