"""The package works from any folder, and the wheel carries the registry and data."""

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import dungeonbench_gym

ROOT = Path(__file__).resolve().parents[1]


def test_make_without_import_from_any_folder(tmp_path):
    ids = dungeonbench_gym.ids()
    code = ("import gymnasium, sys\n"
            "for i in sys.argv[1:]:\n"
            "    env = gymnasium.make('dungeonbench_gym:DungeonBench/' + i)\n"
            "    obs, info = env.reset(seed=0)\n"
            "    assert 'action_mask' in obs and 'options' in info\n"
            "print('made', len(sys.argv) - 1)\n")
    res = subprocess.run([sys.executable, "-c", code, *ids], cwd=tmp_path,
                         capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == f"made {len(ids)}"


def test_wheel_ships_registry_files(tmp_path):
    # Build from a copy: setuptools writes build/ and *.egg-info into the source tree.
    src = tmp_path / "src"
    shutil.copytree(ROOT, src, ignore=shutil.ignore_patterns(
        ".venv", ".git", "results", "build", "*.egg-info", "__pycache__", ".pytest_cache"))
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
                    "-q", "-w", str(tmp_path), str(src)], check=True, timeout=300,
                   capture_output=True)
    [wheel] = tmp_path.glob("dungeonbench_gym-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    for toml in (ROOT / "envs").glob("*.toml"):
        assert f"dungeonbench_gym/envs/{toml.name}" in names
    assert "dungeonbench_gym/core/conformance.py" in names
    assert any(n.endswith("entry_points.txt") for n in names)
    # every data file the package reads at run time (calibrations, demos, game lists, SRD)
    for data in (ROOT / "dungeonbench_gym").rglob("*.json"):
        assert data.relative_to(ROOT).as_posix() in names, f"{data} is not in the wheel"


def test_missing_optional_group_names_the_extra(tmp_path):
    # Blocking the import of crafter stands in for an install without the [crafter] group.
    code = ("import sys; sys.modules['crafter'] = None\n"
            "import dungeonbench_gym\n"
            "from dungeonbench_gym.core import DungeonBenchError\n"
            "assert 'Crafter-v0' in dungeonbench_gym.ids()  # registering needs no upstream\n"
            "try:\n"
            "    dungeonbench_gym.make('Crafter-v0')\n"
            "except DungeonBenchError as e:\n"
            "    print(e)\n")
    res = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True,
                         text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    assert "pip install 'dungeonbench-gym[crafter]'" in res.stdout
