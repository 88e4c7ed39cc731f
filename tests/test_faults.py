"""Fault injection (issue 19): an evaluation loses no episode to a dying process or a bad
file. The driver is SIGKILLed at random moments and resumed (process and Ray backends),
envs kill their own interpreter (os._exit, SIGSEGV, Frotz exiting on a truncated story),
result files are corrupted in the ways a crash or a disk leaves them; after each, every
planned episode is on disk exactly once, the lost ones are named with their cause, and no
worker process outlives its driver."""

import json
import os
import random
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import gymnasium as gym
import pytest

from dungeonbench_gym import cli
from dungeonbench_gym.core import registry
from dungeonbench_gym.eval import runner
from dungeonbench_gym.eval.workers import WORKER_FLAG
from toy_env import CounterEnv

REPO = Path(__file__).resolve().parents[1]
LIGHTHOUSE = REPO / "scenarios" / "textadventures" / "lighthouse"
MARKER = "DUNGEONBENCH_FAULT_MARKER"


# ------------------------------------------------------------------ envs that crash
class CrashingEnv(CounterEnv):
    """The toy counter, whose process dies at its first step for the seeds in
    `crash_seeds`: os._exit(3) ("exit"), a segfault ("segv"), or Frotz, the C interpreter,
    exiting on `story_file` ("frotz": our own story validation never sees the file). Or
    it hangs there ("hang"), after leaving a file named by its pid in `started_dir`."""

    def __init__(self, crash: str = "exit", crash_seeds=(), story_file: str | None = None,
                 started_dir: str | None = None, **kwargs):
        super().__init__(**kwargs)
        self.crash, self.crash_seeds, self.story_file = crash, set(crash_seeds), story_file
        self.started_dir = started_dir

    def reset(self, *, seed=None, options=None):
        self.doomed = seed in self.crash_seeds   # the episode's seed (the game gets a derived one)
        return super().reset(seed=seed, options=options)

    def _game_step(self, action):
        if self.doomed:
            if self.crash == "exit":
                os._exit(3)
            elif self.crash == "segv":
                os.kill(os.getpid(), signal.SIGSEGV)
            elif self.crash == "leak":   # an env that prints a key, then dies
                print(f"connecting with {os.environ['FAULT_TEST_API_KEY']}", file=sys.stderr,
                      flush=True)
                os._exit(4)
            elif self.crash == "raise":
                raise RuntimeError(f"the server refused key {os.environ['FAULT_TEST_API_KEY']}")
            elif self.crash == "hang":
                Path(self.started_dir, str(os.getpid())).touch()
                time.sleep(300)
            else:
                import jericho

                jericho.FrotzEnv(self.story_file).reset()
        return super()._game_step(action)


def _truncated_story(folder: Path) -> Path:
    story = folder / "lighthouse-cut.z5"
    story.write_bytes((LIGHTHOUSE / "lighthouse.z5").read_bytes()[:4000])
    return story


@pytest.fixture(scope="module")
def toys(tmp_path_factory):
    """Toy ids registered in this process (workers get them from the driver): a counter
    that never crashes and three that die at seed 1, i.e. in their episode 1."""
    folder = tmp_path_factory.mktemp("toys")
    story = _truncated_story(folder)
    path = folder / "toys.toml"
    path.write_text(
        'family = "toy"\nentry_point = "test_faults:CrashingEnv"\nmetric = "counter at 5"\n'
        "actions = 4\nmax_steps = 40\n"
        '[[envs]]\nid = "Toy-Counter-v0"\n'
        '[[envs]]\nid = "Toy-CrashExit-v0"\nkwargs = { crash = "exit", crash_seeds = [1] }\n'
        '[[envs]]\nid = "Toy-CrashSegv-v0"\nkwargs = { crash = "segv", crash_seeds = [1] }\n'
        '[[envs]]\nid = "Toy-Leak-v0"\nkwargs = { crash = "leak", crash_seeds = [0] }\n'
        '[[envs]]\nid = "Toy-Raise-v0"\nkwargs = { crash = "raise", crash_seeds = [0] }\n'
        '[[envs]]\nid = "Toy-CrashFrotz-v0"\n'
        f'kwargs = {{ crash = "frotz", crash_seeds = [1], story_file = "{story}" }}\n')
    entries = registry.register_file(path)
    yield {"story": story}
    for e in entries:   # leave the registry as other tests expect it
        registry.REGISTRY.pop(e.id, None)
        gym.registry.pop(e.gym_id, None)


# ----------------------------------------------------------------------- helpers
def _episode_files(out: Path) -> list[Path]:
    return sorted(out.glob("episodes/*/*/episode-*[0-9].json"))


def _keys(out: Path) -> list[tuple]:
    keys = []
    for path in _episode_files(out):
        record, problem = runner.read_record(path)
        assert problem is None, f"{path}: {problem}"
        keys.append((record["agent"], record["env_id"], record["episode"]))
    return keys


def _marked(marker: str) -> dict[int, str]:
    """pid -> command line of every process whose environment holds the marker (all the
    descendants of a driver started with it: workers, Ray's raylet and workers, ...)."""
    needle = f"{MARKER}={marker}".encode()
    found = {}
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            environ = Path(f"/proc/{pid}/environ").read_bytes()
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ")
        except OSError:   # gone meanwhile, or not ours to read
            continue
        if needle in environ.split(b"\0"):
            found[int(pid)] = cmdline.decode(errors="replace")
    return found


def _assert_none_survive(marker: str, within: float) -> None:
    deadline = time.monotonic() + within
    while (left := _marked(marker)) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not left, f"processes outlived their driver: {left}"


def _ctrl_c_as_at_a_terminal() -> None:
    # a process started in the background of a non-interactive shell (`cmd &`, nohup) inherits
    # SIGINT ignored, and Python then keeps it ignored; the driver stands for one run at a
    # terminal, where Ctrl-C is delivered
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _driver(command: list[str], marker: str, env: dict | None = None) -> subprocess.Popen:
    return subprocess.Popen(command, env={**os.environ, **(env or {}), MARKER: marker},
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            preexec_fn=_ctrl_c_as_at_a_terminal)


def _wait_for_files(out: Path, proc: subprocess.Popen, count: int, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while len(_episode_files(out)) < count:
        assert proc.poll() is None, "the run ended before the kill: plan more episodes"
        assert time.monotonic() < deadline, f"no {count} episode files after {timeout} s"
        time.sleep(0.02)


def _eval_command(out: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "dungeonbench_gym.cli", "eval", "--quiet", "--out", str(out),
            *extra]


def _check_complete(out: Path, planned: set[tuple], before: dict[Path, bytes]) -> None:
    keys = _keys(out)
    assert len(keys) == len(set(keys)), "an episode is on disk twice"
    assert set(keys) == planned, f"lost: {planned - set(keys)}; unplanned: {set(keys) - planned}"
    assert all(path.read_bytes() == data for path, data in before.items()), "an episode redone"
    for path in _episode_files(out):   # each with its whole trajectory
        record = json.loads(path.read_text())
        assert runner.trajectory_problem(path.with_suffix(".trajectory.jsonl"),
                                         record["steps"]) is None
    assert not list(out.rglob("*.tmp")) and not list(out.rglob("*.corrupt-*"))


# ------------------------------------------------------------- SIGKILL and resume
KILL_ARGS = ["--agent", "random,baseline",
             "--envs", "BabyAI-GoTo-v0,BabaIsAI-goto_win-v0,DnD-Encounter-GoblinAmbush-v0",
             "--episodes", "20", "--workers", "2"]
KILL_PLAN = {(agent, env, k) for agent in ("random", "baseline")
             for env in ("BabyAI-GoTo-v0", "BabaIsAI-goto_win-v0", "DnD-Encounter-GoblinAmbush-v0")
             for k in range(20)}
# A mid-run kill comes before this many episodes are left, so the driver is still playing
# (not summarising after the last episode) however fast the machine is.
KILL_MARGIN = 20


def test_sigkill_at_random_moments_then_resume_loses_and_repeats_nothing(tmp_path):
    rng = random.Random(19)
    out = tmp_path / "run"
    command = _eval_command(out, *KILL_ARGS)
    for kill in range(3):
        marker = uuid.uuid4().hex
        proc = _driver(command, marker)
        if kill == 0:   # anywhere from start-up (workers being started) to the first episodes
            time.sleep(rng.uniform(0.2, 1.5))
        else:           # in the middle of the run, workers busy
            done = len(_episode_files(out))
            assert done < len(KILL_PLAN) - KILL_MARGIN, f"{done} episodes before kill {kill}: plan more"
            _wait_for_files(out, proc, min(done + rng.randint(1, 8), len(KILL_PLAN) - KILL_MARGIN))
            time.sleep(rng.uniform(0.0, 0.2))
            workers = [c for c in _marked(marker).values() if WORKER_FLAG in c]
            assert len(workers) == 2, _marked(marker)
        assert proc.poll() is None, "the run ended before the kill: plan more episodes"
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        _assert_none_survive(marker, within=3.0)
        _keys(out)   # every file on disk parses: writes are atomic
    before = {p: p.read_bytes() for p in _episode_files(out)}
    assert 2 <= len(before) < len(KILL_PLAN)
    marker = uuid.uuid4().hex
    done = subprocess.run(command, capture_output=True, text=True, timeout=300,
                          env={**os.environ, MARKER: marker})
    assert done.returncode == 0, done.stderr[-2000:]
    _assert_none_survive(marker, within=0.5)   # a normal end stops its workers too
    _check_complete(out, KILL_PLAN, before)


def test_sigkill_with_the_ray_backend_then_resume(tmp_path):
    rng = random.Random(7)
    out = tmp_path / "ray"
    command = _eval_command(out, "--agent", "random", "--backend", "ray", "--workers", "2",
                            "--envs", "BabyAI-GoTo-v0,BabaIsAI-goto_win-v0", "--episodes", "30")
    marker = uuid.uuid4().hex
    proc = _driver(command, marker)
    _wait_for_files(out, proc, rng.randint(2, 6))
    time.sleep(rng.uniform(0.0, 0.2))
    assert proc.poll() is None, "the run ended before the kill: plan more episodes"
    assert len(_marked(marker)) > 1   # the driver and Ray's processes
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    _assert_none_survive(marker, within=10.0)   # Ray's, the reaper's victims, the reaper
    before = {p: p.read_bytes() for p in _episode_files(out)}
    done = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    planned = {("random", env, k) for env in ("BabyAI-GoTo-v0", "BabaIsAI-goto_win-v0")
               for k in range(30)}
    _check_complete(out, planned, before)


@pytest.mark.parametrize("signum, code", [(signal.SIGKILL, -signal.SIGKILL),
                                          (signal.SIGTERM, 128 + signal.SIGTERM),
                                          (signal.SIGINT, 130)])
def test_workers_busy_in_an_episode_end_with_their_driver(tmp_path, signum, code):
    """Workers stuck in an endless episode: they cannot notice a closed pipe, so only the
    parent-death signal, the parent watch, or the driver's own clean-up can end them."""
    started = tmp_path / "started"
    started.mkdir()
    user_envs = tmp_path / "envs"
    user_envs.mkdir()
    (user_envs / "hang.toml").write_text(
        'family = "toy"\nentry_point = "test_faults:CrashingEnv"\nmetric = "counter"\n'
        'actions = 4\n[[envs]]\nid = "Toy-Hang-v0"\n'
        f'kwargs = {{ crash = "hang", crash_seeds = [0, 1], started_dir = "{started}" }}\n')
    marker = uuid.uuid4().hex
    env = {registry.ENV_PATH_VARIABLE: str(user_envs),
           "PYTHONPATH": os.pathsep.join([str(Path(__file__).parent),
                                          os.environ.get("PYTHONPATH", "")])}
    proc = _driver(_eval_command(tmp_path / "run", "--agent", "random", "--envs", "Toy-Hang-v0",
                                 "--episodes", "2", "--workers", "2"), marker, env=env)
    deadline = time.monotonic() + 60
    while len(list(started.iterdir())) < 2:   # both workers inside their episode
        assert proc.poll() is None and time.monotonic() < deadline, "the workers never started"
        time.sleep(0.05)
    hung = {int(p.name) for p in started.iterdir()}
    assert hung <= set(_marked(marker))
    proc.send_signal(signum)
    assert proc.wait(timeout=90) == code   # seconds when quiet; the bound is for a loaded 2-core CI
    _assert_none_survive(marker, within=3.0)


# ------------------------------------------------------------ envs that crash
def test_an_env_that_kills_its_interpreter_loses_only_its_own_episode(toys, tmp_path):
    envs = [("Toy-Counter-v0", 3), ("Toy-CrashExit-v0", 3), ("Toy-CrashSegv-v0", 3),
            ("Toy-CrashFrotz-v0", 3)]
    tasks, _ = runner.plan(["random"], envs)
    out = tmp_path / "run"
    # one worker: each death must be followed by a new worker that plays the rest
    counts = runner.run(tasks, out, workers=1, progress_bar=False)
    assert counts == {"ran": 9, "already_done": 0, "failed": 3, "corrupt": 0}
    assert set(_keys(out)) == {("random", env, k) for env, n in envs for k in range(n)} - {
        ("random", env, 1) for env in ("Toy-CrashExit-v0", "Toy-CrashSegv-v0",
                                       "Toy-CrashFrotz-v0")}
    log = (out / "errors.log").read_text()
    assert "random Toy-CrashExit-v0 episode 1: worker died (exit code 3)" in log
    assert "random Toy-CrashSegv-v0 episode 1: worker died (killed by SIGSEGV)" in log
    assert "Segmentation fault" in log   # faulthandler's report, from the worker's output
    frotz = next(line for line in log.splitlines() if "Toy-CrashFrotz-v0 episode 1" in line)
    assert "worker died (exit code 1)" in frotz and str(toys["story"]) in frotz
    assert "Story file read error" in log   # what Frotz printed before it exited
    # a resume reruns only the lost episodes (they crash again, and are named again)
    again = runner.run(tasks, out, workers=2, progress_bar=False)
    assert again == {"ran": 0, "already_done": 9, "failed": 3, "corrupt": 0}


def test_no_file_the_runner_writes_holds_a_secret_a_dying_env_printed(toys, tmp_path,
                                                                         monkeypatch, capsys):
    secret = "sk-fault-" + uuid.uuid4().hex
    monkeypatch.setenv("FAULT_TEST_API_KEY", secret)   # before the workers start
    tasks, _ = runner.plan(["random"], [("Toy-Leak-v0", 1), ("Toy-Raise-v0", 1),
                                        ("Toy-Counter-v0", 1)])
    out = tmp_path / "run"
    assert runner.run(tasks, out, workers=1, progress_bar=False)["failed"] == 2
    log = (out / "errors.log").read_text()
    assert "worker died (exit code 4)" in log and "connecting with [REDACTED]" in log
    assert "the server refused key [REDACTED]" in log
    for path in out.rglob("*"):
        assert not path.is_file() or secret.encode() not in path.read_bytes(), path
    assert secret not in capsys.readouterr().err   # the worker's output, passed on


def test_a_ray_worker_that_dies_fails_its_own_task_only(toys, tmp_path, monkeypatch):
    # Ray's workers import the toy env from here; they read the registry file from the task
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(
        [str(Path(__file__).parent), os.environ.get("PYTHONPATH", "")]))
    tasks, _ = runner.plan(["random"], [("Toy-Counter-v0", 2), ("Toy-CrashExit-v0", 3)])
    out = tmp_path / "run"
    counts = runner.run(tasks, out, workers=2, progress_bar=False, backend="ray")
    assert counts == {"ran": 4, "already_done": 0, "failed": 1, "corrupt": 0}
    assert ("random", "Toy-CrashExit-v0", 1) not in set(_keys(out))
    (line,) = (out / "errors.log").read_text().splitlines()
    # max_retries=0: the death is recorded, not hidden by a rerun that would die too
    assert line.startswith("random Toy-CrashExit-v0 episode 1: WorkerCrashedError"), line


def test_an_eval_over_three_families_with_a_truncated_story_finishes_every_other_episode(
        tmp_path):
    story = _truncated_story(tmp_path)
    user_envs = tmp_path / "my-envs"
    user_envs.mkdir()
    (user_envs / "stories.toml").write_text(
        'family = "textadventure"\n'
        'entry_point = "dungeonbench_gym.games.textadventure.env:TextAdventureEnv"\n'
        'metric = "achievements"\nactions = 128\n'
        '[[envs]]\nid = "TextAdventure-Cut-v0"\n'
        f'kwargs = {{ story_file = "{story}", '
        f'achievements = "{LIGHTHOUSE / "lighthouse.achievements"}" }}\n')
    out = tmp_path / "run"
    envs = ["BabyAI-GoTo-v0", "DnD-Encounter-GoblinAmbush-v0", "TextAdventure-Cut-v0"]
    done = subprocess.run(
        _eval_command(out, "--agent", "random", "--envs", ",".join(envs), "--episodes", "3",
                      "--workers", "2"),
        env={**os.environ, registry.ENV_PATH_VARIABLE: str(user_envs)},
        capture_output=True, text=True, timeout=300)
    assert done.returncode == 1, done.stderr[-2000:]   # 1: some episodes failed
    assert "failed 3 (see errors.log)" in done.stderr
    assert set(_keys(out)) == {("random", env, k) for env in envs[:2] for k in range(3)}
    failures = [line for line in (out / "errors.log").read_text().splitlines()
                if line.startswith("random ")]
    assert len(failures) == 3
    for k, line in enumerate(sorted(failures)):
        assert line.startswith(f"random TextAdventure-Cut-v0 episode {k}: ")
        assert str(story) in line, line    # the file is named, however the episode failed
    summary = json.loads((out / "summary.json").read_text())
    assert set(summary["agents"]["random"]["families"]) == {"babyai", "dnd"}


# ------------------------------------------------------------ corrupt result files
CORRUPTIONS = {
    0: b'{"agent": "random", "env_id": "Toy-Counter-v0", "epis',   # cut short
    1: b"",                                                             # emptied
    2: b'{"agent": "random", "env_id": "Toy-Counter-v0", "episode": 2}',  # fields missing
    3: bytes(range(256)) * 4,                                           # garbage
}


def test_corrupt_episode_files_are_named_moved_aside_and_rerun(toys, tmp_path, capsys):
    tasks, _ = runner.plan(["random"], [("Toy-Counter-v0", 6)])
    out = tmp_path / "run"
    assert runner.run(tasks, out, workers=1, progress_bar=False)["ran"] == 6
    paths = _episode_files(out)
    original = {p: json.loads(p.read_text()) for p in paths}
    for k, data in CORRUPTIONS.items():
        paths[k].write_bytes(data)
    trajectory = paths[4].with_suffix(".trajectory.jsonl")
    trajectory.write_text(trajectory.read_text()[:-7])   # its last step cut short
    stale = paths[5].with_suffix(".json.tmp")
    stale.write_text('{"half": ')                       # a write a kill interrupted
    damaged = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}

    # summarize and compare: the bad files named, the rest summarised, nothing moved
    capsys.readouterr()
    assert cli.main(["summarize", str(out)]) == 0
    assert cli.main(["compare", str(out), str(out)]) == 0
    printed = capsys.readouterr()
    for k in CORRUPTIONS:
        assert printed.err.count(f"skipped corrupt episode file {paths[k]}") == 3
    assert "| 1 | random |" in printed.out
    assert all(p.read_bytes() == data for p, data in damaged.items())
    assert not list(out.rglob("*.corrupt-*"))

    # resume: each named on stderr and in errors.log, kept aside, and its episode rerun
    counts = runner.run(tasks, out, workers=1, progress_bar=False)
    assert counts == {"ran": 5, "already_done": 1, "failed": 0, "corrupt": 5}
    err = capsys.readouterr().err
    log = (out / "errors.log").read_text()
    for k in (*CORRUPTIONS, 4):
        assert f"{paths[k]}: corrupt episode file" in err and f"{paths[k]}: corrupt" in log
        assert _played(json.loads(paths[k].read_text())) == _played(original[paths[k]])
    for k, data in CORRUPTIONS.items():   # the data is kept as it was
        assert paths[k].with_name(paths[k].name + ".corrupt-1").read_bytes() == data
    assert f"{paths[4]}: corrupt episode file: its trajectory file" in log
    assert trajectory.with_name(trajectory.name + ".corrupt-1").read_bytes() \
        == damaged[trajectory]
    assert not stale.exists()
    assert paths[5].read_bytes() == damaged[paths[5]]   # the good one untouched
    _check_complete_after_corruption(out, tasks)

    # the same episode broken again gets the next free name; the first copy stays
    paths[0].write_text("[]")
    assert runner.run(tasks, out, workers=1, progress_bar=False)["corrupt"] == 1
    assert paths[0].with_name(paths[0].name + ".corrupt-2").read_text() == "[]"
    assert paths[0].with_name(paths[0].name + ".corrupt-1").read_bytes() == CORRUPTIONS[0]
    capsys.readouterr()
    assert cli.main(["summarize", str(out)]) == 0
    assert "corrupt" not in capsys.readouterr().err   # moved-aside copies are not episodes


def _played(record: dict) -> dict:
    """A record without its wall-clock time: what a rerun of the same seed reproduces."""
    return {k: v for k, v in record.items() if k != "seconds"}


def _check_complete_after_corruption(out: Path, tasks) -> None:
    keys = _keys(out)
    assert sorted(keys) == sorted((t.agent.label, t.env_id, t.episode) for t in tasks)


def test_summarize_with_only_corrupt_files_is_a_clear_error(tmp_path, capsys):
    folder = tmp_path / "run" / "episodes" / "random" / "BabyAI-GoTo-v0"
    folder.mkdir(parents=True)
    (folder / "episode-0000.json").write_text("{")
    assert cli.main(["summarize", str(tmp_path / "run")]) == 2
    err = capsys.readouterr().err
    assert f"skipped corrupt episode file {folder / 'episode-0000.json'}: is not valid JSON" in err
    assert "no usable episode files (1 corrupt, named above)" in err
