"""LLMAgent on real envs with a ScriptedClient: legal actions always, BALROG's fallback and
feedback, retries, bounded history, complete records, vision only where it can work."""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import numpy as np
import pytest

import dungeonbench_gym
from dungeonbench_gym.core.errors import DungeonBenchError
from dungeonbench_gym.llm.agent import LLMAgent
from dungeonbench_gym.llm.base import ClientError, TransientError
from dungeonbench_gym.llm.fake import ScriptedClient
from dungeonbench_gym.llm.parsing import parse_choice
from dungeonbench_gym.llm.prompting import command_list, rules_text, system_message
from dungeonbench_gym.llm.strategies import (STRATEGIES, Strategy, get_strategy,
                                             register_strategy)

CORPUS = Path(__file__).parent / "data" / "llm_malformed_answers.txt"
RECORD_FIELDS = {"step", "decision", "legal_options", "prompt_chars", "prompt_messages", "images",
                 "history_steps", "note", "completions", "parse_errors", "parsed", "action",
                 "fell_back", "retries", "prompt_tokens", "completion_tokens", "latency_s",
                 "client_error", "client_errors", "max_request_tokens", "prompt_tokens_estimate",
                 "context_tokens", "compaction"}


def corpus() -> list[str]:
    chunks = CORPUS.read_text(encoding="utf-8").split("\n%%\n")[1:]
    chunks[-1] = chunks[-1].removesuffix("\n")
    return chunks


def legal_lines(info) -> list[str]:
    return [f"{o.index}: {o.label}" for o in info["options"]]


def play(env, agent, steps, seed=0):
    """Play `steps` steps (new episodes as needed); yield (info before, action, record)."""
    obs, info = env.reset(seed=seed)
    agent.reset(env, seed)
    for _ in range(steps):
        action = agent.act(obs, info)
        yield info, action, agent.last_record
        obs, _, terminated, truncated, info = env.step(action)
        if terminated or truncated:
            obs, info = env.reset()
            agent.reset(env)


@pytest.fixture(scope="module")
def babyai():
    return dungeonbench_gym.make("BabyAI-GoTo-v0", text=True)


@pytest.fixture(scope="module")
def crafter_rgb():
    return dungeonbench_gym.make("Crafter-v0", text=True, render_mode="rgb_array")


# ------------------------------------------------------------ malformed answers
@pytest.mark.parametrize("env_id", ["BabyAI-GoTo-v0", "Crafter-v0"])
def test_malformed_answers_never_break_an_episode(env_id):
    answers = corpus() + ["x" * 50_000, "9" * 5000, "\x00\x00", "go forward\x00"]
    assert len(answers) >= 50
    env = dungeonbench_gym.make(env_id, text=True)
    client = ScriptedClient(answers, cycle=False)
    agent = LLMAgent(client, max_retries=0)
    table = env.unwrapped.option_table
    fallbacks = 0
    previous_fell_back, previous_step = False, -1
    for info, action, record in play(env, agent, len(answers)):
        legal = {o.index for o in info["options"]}
        assert action in legal
        answer = record["completions"][0]
        expected = parse_choice(answer, info["options"], table)
        assert record["fell_back"] == (expected is None)
        if record["fell_back"]:
            fallbacks += 1
            assert action == env.unwrapped.fallback_action()
            assert record["parsed"] is None and record["parse_errors"]
        else:
            assert action == expected.index == record["parsed"]["index"]
        current = client.calls[-1][-1]["content"]
        same_episode = record["step"] == previous_step + 1
        # BALROG: the model hears about its invalid answer on the next turn, and only then
        if same_episode and previous_fell_back:
            assert current.startswith("Note: your previous answer")
            assert "was executed instead" in current
        else:
            assert "Note: your previous answer" not in current
        previous_fell_back, previous_step = record["fell_back"], record["step"]
    assert fallbacks >= 40
    assert len(client.calls) == len(answers)


def test_a_well_formed_answer_is_executed_exactly(babyai):
    def pick_last_option(messages):   # answers with the last listed legal option's label
        lines = re.findall(r"^\d+: (.+)$", messages[-1]["content"], re.MULTILINE)
        return lines[-1]
    agent = LLMAgent(ScriptedClient(pick_last_option))
    for info, action, record in play(babyai, agent, 12):
        last = list(info["options"])[-1]
        assert action == last.index
        assert record["parsed"] == record["action"] == {"index": last.index, "label": last.label}
        assert not record["fell_back"] and record["retries"] == 0


def test_index_answers_and_cot_answers_are_executed(babyai):
    agent = LLMAgent(ScriptedClient(["1", "Facing a wall, I turn.\nFinal answer: turn left"]),
                     strategy="cot")
    _, first, _ = next(iter(play(babyai, agent, 1)))
    assert first == 1
    reasoning = "The wall is close; turn right is worse.\nFinal answer: turn left"
    agent = LLMAgent(ScriptedClient([reasoning]), strategy="cot")
    _, action, record = next(iter(play(babyai, agent, 1)))
    assert action == 0 and record["parsed"]["label"] == "turn left"


def test_retries_reask_with_only_what_was_wrong(babyai):
    # issue 21: a re-ask sends the correction, not the whole option list again, and only
    # the latest unusable answer (re-asks do not pile up in the chat)
    client = ScriptedClient(["banana", "option 99", "Action: turn right"])
    agent = LLMAgent(client, max_retries=2)
    info, action, record = next(iter(play(babyai, agent, 1)))
    assert action == 1 and not record["fell_back"]
    assert record["retries"] == 2 and len(record["completions"]) == 3
    assert len(record["parse_errors"]) == 2 and "99" in record["parse_errors"][1]
    assert len(client.calls) == 3
    first, second, third = client.calls
    assert len(second) == len(first) + 2 and len(third) == len(first) + 2
    assert second[:-2] == first and third[:-2] == first
    assert second[-2] == {"role": "assistant", "content": "banana"}
    assert third[-2] == {"role": "assistant", "content": "option 99"}
    reask = second[-1]["content"]
    assert reask.startswith("Your answer could not be used")
    assert not any(line in reask for line in legal_lines(info))
    assert len(reask) < 250
    assert "99" in third[-1]["content"]
    assert record["prompt_tokens"] == sum(len(" ".join(m["content"] for m in call).split())
                                          for call in client.calls)
    assert record["completion_tokens"] == 1 + 2 + 3


def test_retries_used_up_fall_back_and_the_next_turn_says_so(babyai):
    client = ScriptedClient(["banana"] * 3 + ["turn left"])
    agent = LLMAgent(client, max_retries=2)
    steps = iter(play(babyai, agent, 2))
    _, action, record = next(steps)
    assert record["fell_back"] and record["retries"] == 2 and len(record["completions"]) == 3
    assert action == babyai.unwrapped.fallback_action()
    next(steps)
    note = client.calls[-1][-1]["content"].split("\n\n")[0]
    assert note.startswith("Note: your previous answer (\"banana\") could not be used")
    assert f'"{record["action"]["label"]}" was executed instead' in note
    assert agent.last_record["note"] == note and not agent.last_record["fell_back"]


def test_max_retries_zero_asks_once(babyai):
    client = ScriptedClient(["banana"])
    agent = LLMAgent(client, max_retries=0)
    _, _, record = next(iter(play(babyai, agent, 1)))
    assert len(client.calls) == 1 and record["retries"] == 0 and record["fell_back"]


# ------------------------------------------------------------ history and prompts
@pytest.mark.parametrize("history", [0, 3])
def test_history_holds_at_most_n_observations(babyai, history):
    client = ScriptedClient(["turn left", "turn left", "turn right"])   # always legal
    agent = LLMAgent(client, history=history)
    executed = []
    for info, action, record in play(babyai, agent, 8):
        messages = client.calls[-1]
        past = messages[1:-1]
        assert len(past) == 2 * min(record["step"], history) == 2 * record["history_steps"]
        assert [m["role"] for m in past] == ["user", "assistant"] * (len(past) // 2)
        # the assistant turns are the actions executed, most recent last
        if history:
            assert [m["content"] for m in past[1::2]] == executed[-history:]
        assert record["prompt_messages"] == len(messages)
        assert record["prompt_chars"] == sum(len(m["content"]) for m in messages)
        executed.append(record["action"]["label"])
        assert info["text"]["long_term"] in messages[-1]["content"]
        assert info["text"]["short_term"] in messages[-1]["content"]


def test_history_turns_show_the_long_term_text_only(babyai):
    client = ScriptedClient(["turn left"])
    agent = LLMAgent(client, history=4)
    seen = []
    for info, _, _ in play(babyai, agent, 3):
        seen.append(info["text"])
    messages = client.calls[-1]
    assert messages[1]["content"] == "Observation:\n" + seen[0]["long_term"]
    assert seen[0]["short_term"] not in messages[1]["content"]


def test_reset_clears_history_note_and_trajectory(babyai):
    client = ScriptedClient(["banana", "turn left"])
    agent = LLMAgent(client, max_retries=0)
    # seed 2: the fallback's "go forward" and two left turns do not finish the mission
    # (on seed 0 one step forward already faces the goal and a new episode begins)
    list(play(babyai, agent, 3, seed=2))
    assert len(agent.trajectory) == 3
    obs, info = babyai.reset(seed=1)
    agent.reset(babyai, 1)
    assert agent.trajectory == [] and agent.last_record is None and not agent.turns
    agent.act(obs, info)
    assert len(client.calls[-1]) == 2 and "Note:" not in client.calls[-1][-1]["content"]


def test_records_have_every_field(babyai):
    agent = LLMAgent(ScriptedClient(["turn left", "banana"]), max_retries=1)
    records = [record for _, _, record in play(babyai, agent, 4)]
    assert agent.trajectory == records
    for record in records:
        assert set(record) == RECORD_FIELDS
        assert record["action"]["index"] in range(babyai.action_space.n)
        assert record["prompt_chars"] > 0 and record["prompt_messages"] >= 2
        assert record["latency_s"] >= 0 and record["completion_tokens"] >= 1
    assert [r["step"] for r in records] == [0, 1, 2, 3]


def test_prompt_has_rules_command_list_and_numbered_legal_options(crafter_rgb):
    client = ScriptedClient(["Do"])
    agent = LLMAgent(client)
    info, _, _ = next(iter(play(crafter_rgb, agent, 1)))
    system, current = client.calls[0][0], client.calls[0][-1]
    assert system["role"] == "system" and "Crafter" in system["content"]
    for option in crafter_rgb.unwrapped.option_table:
        assert f"- {option.label} -- {option.description}" in system["content"]
    assert "Legal options now:\n" + "\n".join(legal_lines(info)) in current["content"]
    assert current["content"].endswith(get_strategy("direct").instructions())


def test_command_lists_fill_descriptions_and_fold_lookalikes():
    babyai_env = dungeonbench_gym.make("BabyAI-GoTo-v0", text=True)
    assert "- go forward -- move one cell the way you face" in command_list(babyai_env)
    nethack = dungeonbench_gym.make("NetHack-v0", text=True)
    commands = command_list(nethack)
    assert "- choose X, X one of: a b c" in commands
    assert "- far X, X one of: north east" in commands
    assert len(commands.splitlines()) < 50
    minihack = dungeonbench_gym.make("MiniHack-Corridor-R3-v0", text=True)
    assert "- pray" not in command_list(minihack)          # not in the task's action set
    assert "staircase down" in rules_text(minihack)
    assert len(system_message(nethack)["content"]) < 4000


def test_baba_is_ai_plays_and_minihack_tasks_state_their_goal():
    env = dungeonbench_gym.make("BabaIsAI-goto_win-v0", text=True)
    client = ScriptedClient(["idle"])
    _, action, record = next(iter(play(env, LLMAgent(client), 1)))
    assert action == 0 and not record["fell_back"]
    assert "IS WIN" in client.calls[0][0]["content"]
    boxoban = dungeonbench_gym.make("MiniHack-Boxoban-Medium-v0", text=True)
    assert "boulder" in rules_text(boxoban)


# ------------------------------------------------------------ text and vision
def test_env_without_text_is_a_clear_error():
    env = dungeonbench_gym.make("BabyAI-GoTo-v0")
    obs, info = env.reset(seed=0)
    agent = LLMAgent(ScriptedClient(["go forward"]))
    agent.reset(env, 0)
    with pytest.raises(DungeonBenchError, match="text=True"):
        agent.act(obs, info)


def test_vision_attaches_the_frame_to_the_current_message_only(crafter_rgb):
    client = ScriptedClient(["Move East"], supports_images=True)
    agent = LLMAgent(client, vision=True)
    for _, _, record in play(crafter_rgb, agent, 3):
        assert record["images"] == 1
    messages = client.calls[-1]
    image = messages[-1]["images"][0]
    assert image.dtype == np.uint8 and image.ndim == 3 and image.shape[2] == 3
    assert image.shape == crafter_rgb.render().shape
    assert all("images" not in m for m in messages[:-1])     # history stays text


def test_vision_stays_text_when_it_cannot_work(crafter_rgb):
    blind = ScriptedClient(["Move East"], supports_images=False)
    with pytest.warns(UserWarning, match="does not take images"):
        records = [r for _, _, r in play(crafter_rgb, LLMAgent(blind, vision=True), 2)]
    assert all(r["images"] == 0 for r in records)
    assert all("images" not in m for call in blind.calls for m in call)

    text_env = dungeonbench_gym.make("Crafter-v0", text=True)
    seeing = ScriptedClient(["Move East"], supports_images=True)
    with pytest.warns(UserWarning, match="rgb_array"):
        list(play(text_env, LLMAgent(seeing, vision=True), 2))
    assert all("images" not in m for call in seeing.calls for m in call)

    off = ScriptedClient(["Move East"], supports_images=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        list(play(crafter_rgb, LLMAgent(off, vision=False), 2))
    assert all("images" not in m for call in off.calls for m in call)


# ------------------------------------------------------------ client errors
class _Broken(ScriptedClient):
    def complete(self, messages):
        raise TransientError("rate limited (test)")


def test_client_errors_raise_by_default_or_fall_back_when_asked(babyai):
    with pytest.raises(ClientError):
        list(play(babyai, LLMAgent(_Broken(["x"])), 1))
    agent = LLMAgent(_Broken(["x"]), on_client_error="fallback")
    _, action, record = next(iter(play(babyai, agent, 1)))
    assert record["fell_back"] and "rate limited" in record["client_error"]
    assert action == babyai.unwrapped.fallback_action()


def test_bad_arguments_are_refused():
    client = ScriptedClient(["x"])
    for kwargs in ({"history": -1}, {"max_retries": -1}, {"on_client_error": "ignore"}):
        with pytest.raises(ValueError):
            LLMAgent(client, **kwargs)
    with pytest.raises(DungeonBenchError, match="unknown strategy"):
        LLMAgent(client, strategy="telepathy")


# ------------------------------------------------------------ strategies and the fake client
def test_a_new_strategy_is_one_small_class(babyai):
    @register_strategy("always_turn_right_test")
    class AlwaysTurnRight(Strategy):
        def instructions(self):
            return "Reply with anything."

        def parse(self, answer, options, table=()):
            return super().parse("turn right", options, table)

    try:
        assert STRATEGIES["always_turn_right_test"] is AlwaysTurnRight
        client = ScriptedClient(["whatever"])
        _, action, _ = next(iter(play(babyai, LLMAgent(client, "always_turn_right_test"), 1)))
        assert action == 1 and client.calls[0][-1]["content"].endswith("Reply with anything.")
        assert LLMAgent(client, AlwaysTurnRight()).strategy.name == "always_turn_right_test"
    finally:
        STRATEGIES.pop("always_turn_right_test")
    with pytest.raises(TypeError):
        register_strategy("not_a_strategy", object)
    assert {"direct", "cot"} <= set(STRATEGIES)
    assert "Final answer:" in get_strategy("cot").instructions()


def test_scripted_client_counts_words_and_records_calls():
    client = ScriptedClient(["go forward now", "turn left"], cycle=False)
    chat = [{"role": "user", "content": "one two three"}]
    first = client.complete(chat)
    chat.append({"role": "assistant", "content": "edited later"})
    assert (first.text, first.prompt_tokens, first.completion_tokens) == ("go forward now", 3, 3)
    assert client.calls == [[{"role": "user", "content": "one two three"}]]
    assert client.complete(chat).text == "turn left"
    with pytest.raises(ClientError, match="ran out"):
        client.complete(chat)
    assert ScriptedClient(lambda messages: str(len(messages))).complete(chat).text == "2"
    assert client.describe()["provider"] == "fake"
    with pytest.raises(ValueError):
        ScriptedClient([])


# ------------------------------------------------------------ the context budget (issue 21)
class _Window(ScriptedClient):
    """A model with a context window: counts words as tokens (as ScriptedClient reports
    them) and refuses, like a server, any request that would not fit."""

    def __init__(self, answers, window, *, tell_window=True, **kwargs):
        super().__init__(answers, **kwargs)
        self.window, self.tell_window = window, tell_window
        self.requests = []

    def context_length(self):
        return self.window if self.tell_window else None

    def complete(self, messages, tools=None):
        completion = super().complete(messages, tools)
        self.requests.append(completion.prompt_tokens)
        if completion.prompt_tokens + self.max_tokens > self.window:
            from dungeonbench_gym.llm.base import ContextOverflowError
            raise ContextOverflowError(f"requested {completion.prompt_tokens} tokens, window "
                                       f"{self.window}", limit=self.window,
                                       requested=completion.prompt_tokens)
        return completion


@pytest.fixture(scope="module")
def goblins():
    return dungeonbench_gym.make("DnD-Encounter-GoblinAmbush-v0", text=True)


def _words(messages):
    return sum(len(str(m.get("content", "")).split()) for m in messages)


def test_prompts_fit_the_window_history_first_then_compaction(goblins):
    from dungeonbench_gym.llm.fake import make_fake_client

    window = 700
    client = _Window(make_fake_client("random")._answer, window, max_tokens=40)
    agent = LLMAgent(client, history=16)
    records = [record for _, _, record in play(goblins, agent, 30)]
    # never a request over the window, and the budget was needed: history went first
    assert max(client.requests) + client.max_tokens <= window
    assert all(r["client_errors"] == 0 and r["context_tokens"] == window for r in records)
    assert any(c.startswith("history ") for r in records for c in r["compaction"])
    # the same chat with nothing cut would not have fit
    uncut = [r for r in records if r["compaction"]]
    assert uncut and all(r["history_steps"] < 16 for r in uncut)


def test_a_tiny_window_compacts_the_question_itself(goblins):
    client = _Window(["1"], 330, max_tokens=16)
    agent = LLMAgent(client, history=4, max_retries=0)
    obs, info = goblins.reset(seed=0)
    agent.reset(goblins, 0)
    agent.act(obs, info)
    record = agent.last_record
    assert client.requests and client.requests[-1] + 16 <= 330
    assert "map" in record["compaction"]            # the D&D grid goes before the options
    sent = client.calls[-1][-1]["content"]
    assert "Map: left out" in sent and "################" not in sent
    for option in info["options"]:                  # every option is still offered, by number
        assert f"{option.index}: " in sent


def test_what_cannot_fit_is_never_sent(goblins):
    client = _Window(["1"], 256, max_tokens=200)
    agent = LLMAgent(client, max_retries=0)
    obs, info = goblins.reset(seed=0)
    agent.reset(goblins, 0)
    action = agent.act(obs, info)
    record = agent.last_record
    assert client.calls == [] and record["fell_back"]
    assert action == goblins.unwrapped.fallback_action()
    assert "does not fit" in record["parse_errors"][-1]


def test_an_overflow_error_teaches_the_window(goblins):
    # the client does not say its window: the server's overflow error does, and the same
    # decision is asked again, smaller
    client = _Window(["1"], 600, tell_window=False, max_tokens=32)
    agent = LLMAgent(client, history=16)
    records = [record for _, _, record in play(goblins, agent, 12)]
    overflowed = [r for r in records if r["client_errors"]]
    assert len(overflowed) >= 1 and not any(r["fell_back"] for r in overflowed[:1])
    assert agent.budget.limit == 600
    later = records[records.index(overflowed[0]) + 1:]
    assert later and all(r["client_errors"] == 0 for r in later)


def test_reasks_fit_and_echo_only_the_end_of_a_long_answer(babyai):
    rambling = "I think " * 400 + "the best is banana"
    client = _Window([rambling, "turn left"], 2000, max_tokens=64)
    agent = LLMAgent(client, max_retries=1)
    _, action, record = next(iter(play(babyai, agent, 1)))
    assert action == 0 and record["retries"] == 1
    echo = client.calls[1][-2]["content"]
    assert echo.endswith("the best is banana") and len(echo) <= 300
    assert max(client.requests) + 64 <= 2000


# ------------------------------------------------------------ client errors (issue 21)
class _DiesAfter(ScriptedClient):
    """Answers `n` requests, then every request fails as a dead server's would."""

    def __init__(self, n, **kwargs):
        super().__init__(["1"], **kwargs)
        self.n, self.asked = n, 0

    def complete(self, messages, tools=None):
        self.asked += 1
        if self.asked > self.n:
            raise TransientError("connection refused (test)")
        return super().complete(messages, tools)


def test_fallback_mode_finishes_with_recorded_errors(babyai):
    client = _DiesAfter(2)
    agent = LLMAgent(client, on_client_error="fallback", max_retries=2)
    records = [record for _, _, record in play(babyai, agent, 6)]
    assert [r["fell_back"] for r in records] == [False, False, True, True, True, True]
    assert all("connection refused" in r["client_error"] and r["client_errors"] == 1
               for r in records[2:])
    # a client error is not a parse failure: no re-ask, one request per failed decision
    assert client.asked == 6 and all(r["retries"] == 0 for r in records)
    assert records[3]["note"].startswith("Note: your previous answer could not be used: the "
                                         "model could not be reached")


def test_fail_mode_raises_the_cause(babyai):
    agent = LLMAgent(_DiesAfter(0), on_client_error="fail")
    with pytest.raises(TransientError, match="connection refused"):
        list(play(babyai, agent, 1))
    assert agent.trajectory == [] and LLMAgent(_DiesAfter(0), on_client_error="raise").on_client_error == "fail"


def test_without_a_tokenizer_the_estimate_learns_from_reported_counts(goblins):
    # a dense tokenizer (2 characters a token, denser than the cautious start of 2.5): the
    # reported prompt_tokens teach the ratio, and no request after the first overflows
    class Dense(_Window):
        def count_tokens(self, text):
            return None

        def complete(self, messages, tools=None):
            completion = ScriptedClient.complete(self, messages, tools)
            completion.prompt_tokens = sum(len(str(m.get("content", ""))) for m in messages) // 2
            self.requests.append(completion.prompt_tokens)
            if completion.prompt_tokens + self.max_tokens > self.window:
                from dungeonbench_gym.llm.base import ContextOverflowError
                raise ContextOverflowError("too long", limit=self.window,
                                           requested=completion.prompt_tokens)
            return completion

    client = Dense(["1"], 1500, max_tokens=32)
    agent = LLMAgent(client, history=16)
    records = [record for _, _, record in play(goblins, agent, 20)]
    assert not agent.budget.exact and agent.budget.tokens_per_char >= 0.5
    assert sum(r["client_errors"] for r in records) <= 1
    assert all(n + 32 <= 1500 for n in client.requests[2:])
    assert any(r["compaction"] for r in records)
