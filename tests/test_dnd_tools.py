"""The D&D look-up tools (llm/dnd_tools.py) and the LLM agent's function-calling loop on a
real DnD-Encounter env: tool results equal the engine's look-ups, no tool changes the battle,
bad arguments come back as error objects, calls are bounded and counted per decision."""

from __future__ import annotations

import itertools
import json
import warnings
from fractions import Fraction

import pytest

import dungeonbench_gym
from dungeonbench_gym.agents.spec import AgentSpec, make_llm_agent
from dungeonbench_gym.dnd import lookup
from dungeonbench_gym.dnd.dice import p_d20_success
from dungeonbench_gym.llm.base import ClientError
from dungeonbench_gym.eval.runner import _llm_usage
from dungeonbench_gym.llm.agent import LLMAgent
from dungeonbench_gym.llm.fake import ScriptedClient
from dungeonbench_gym.llm.tools import Tool, ToolSet, tools_for


def _env(scenario="wyrmling_lair", seed=0):
    name = "".join(part.title() for part in scenario.split("_"))      # wyrmling_lair -> WyrmlingLair
    env = dungeonbench_gym.make(f"DnD-Encounter-{name}-v0", text=True)
    env.reset(seed=seed)
    return env


def _snapshot(battle) -> str:
    # the state, the whole event/roll log and the dice generator: a look-up changes none
    return json.dumps([battle.to_dict(recent_events=10_000), len(battle.log),
                       battle.roller.rng.bit_generator.state], sort_keys=True, default=str)


@pytest.fixture
def wyrmling():
    return _env()


# ------------------------------------------------------------------ results = look-ups
def test_tool_results_equal_the_lookup_functions(wyrmling):
    env, b = wyrmling, wyrmling.unwrapped.battle
    tools = tools_for(env)
    actor = b.decision.actor
    assert actor == "wizard"
    got = tools.call("attack_odds", {"attack": "dagger-thrown", "target": "kobold_2"}, env)
    assert got == lookup.attack_odds(b, "wizard", "dagger-thrown", "kobold_2")
    got = tools.call("attack_odds", {"attacker": "fighter", "attack": "longsword", "target": "wyrmling"}, env)
    assert got == lookup.attack_odds(b, "fighter", "longsword", "wyrmling")
    assert got["in_range"] is False
    # an attack-roll spell is priced like the engine casts it: spell attack bonus, 1d10 fire
    bolt = tools.call("attack_odds", {"attack": "fire-bolt", "target": "kobold_2"}, env)
    assert bolt["to_hit"] == b.creatures["wizard"].resources["spell_attack"] and "fire" in bolt["damage"]
    got = tools.call("save_odds", {"target": "wyrmling", "ability": "dex", "dc": 13}, env)
    assert got["p_success"] == lookup.save_odds(b, "wyrmling", "dex", 13)
    got = tools.call("routes", {"x": 3, "y": 1}, env)
    assert got["routes"] == json.loads(json.dumps(lookup.routes(b, actor, (3, 1))))
    assert got["routes"][0]["path"][-1][:2] == [3, 1]
    got = tools.call("creature", {"name": "wyrmling"}, env)
    w = b.creatures["wyrmling"]
    assert (got["hp"], got["ac"], got["max_hp"]) == (w.hp, b.armour_class(w), w.max_hp)
    assert got["speeds"]["fly"] > 0 and "cold" in got["immunities"]
    assert got["distance_ft"] == b.distance(b.creatures["wizard"], w)
    assert [a["key"] for a in got["attacks"]] == [a.key for a in w.attacks]
    assert tools.call("condition", {"name": "Prone"}, env)["effects"] == lookup.CONDITION_RULES["prone"]
    assert "disadvantage" in tools.call("condition", {"name": "Blinded"}, env)["effects"][1]
    assert got["speed_now"] == b.speed(w)
    assert tools.call("spell", {"name": "Burning Hands"}, env)["area"] == {"shape": "cone", "size_ft": 15}


def test_area_targets_matches_the_engine_and_exact_expected_damage(wyrmling):
    env, b = wyrmling, wyrmling.unwrapped.battle
    b.creatures["kobold_2"].pos = (2, 1, 0)        # set up before any look-up: east of the wizard
    b.forget_options()
    got = tools_for(env).call("area_targets", {"what": "burning-hands", "direction": "E"}, env)
    engine_hits = [o.cid for o in b.area_hits(b.creatures["wizard"], ("spell", "burning-hands", 1), (1, 0, 0))]
    assert [h["id"] for h in got["hits"]] == engine_hits and "kobold_2" in engine_hits
    kobold = b.creatures["kobold_2"]
    p = p_d20_success(got["save"]["dc"], kobold.saves["dex"], False, False)
    rolls = [sum(r) for r in itertools.product(range(1, 7), repeat=3)]       # 3d6, every outcome
    full = Fraction(sum(rolls), len(rolls))
    half = Fraction(sum(v // 2 for v in rolls), len(rolls))
    hit = next(h for h in got["hits"] if h["id"] == "kobold_2")
    assert hit["p_save"] == pytest.approx(float(p))
    assert hit["expected_damage"] == pytest.approx(float((1 - p) * full + p * half))
    # a breath is a save action of a monster, aimed by compass direction
    breath = tools_for(env).call("area_targets", {"what": "cold-breath", "user": "wyrmling", "direction": "W"}, env)
    assert breath["save"]["ability"] == "con" and breath["shape"] == "cone"


def test_save_odds_follow_the_conditions(wyrmling):
    b = wyrmling.unwrapped.battle
    k = b.creatures["kobold_1"]
    plain = p_d20_success(13, k.saves["dex"])
    assert lookup.save_odds(b, "kobold_1", "dex", 13) == pytest.approx(float(plain))
    k.conditions["restrained"] = {}
    assert lookup.save_odds(b, "kobold_1", "dex", 13) == pytest.approx(float(plain ** 2))
    assert lookup.save_odds(b, "kobold_1", "wis", 13) == pytest.approx(
        float(p_d20_success(13, k.saves["wis"])))
    del k.conditions["restrained"]
    k.conditions["blessed"] = {}                       # +1d4: the mean over the four faces
    blessed = sum(p_d20_success(13, k.saves["dex"] + d) for d in range(1, 5)) / 4
    assert lookup.save_odds(b, "kobold_1", "dex", 13) == pytest.approx(float(blessed))
    del k.conditions["blessed"]
    k.hp = 0
    assert lookup.save_odds(b, "kobold_1", "str", 5) == 0.0


def test_attack_odds_average_bless_over_its_die(wyrmling):
    b = wyrmling.unwrapped.battle
    plain = lookup.attack_odds(b, "wizard", "dagger-thrown", "kobold_2")
    b.creatures["wizard"].conditions["blessed"] = {}
    blessed = lookup.attack_odds(b, "wizard", "dagger-thrown", "kobold_2")
    ac, bonus = plain["ac"], plain["to_hit"]
    want = sum(p_d20_success(ac, bonus + d, False, True, attack_roll=True) for d in range(1, 5)) / 4
    assert plain["mode"] == "disadvantage" and blessed["p_hit"] == pytest.approx(float(want))
    assert blessed["p_hit"] > plain["p_hit"] and blessed["p_crit"] == plain["p_crit"]


# ------------------------------------------------------------------ read-only
CALLS = [
    ("attack_odds", {"attack": "dagger", "target": "kobold_1"}),
    ("attack_odds", {"attack": "fire-bolt", "target": "wyrmling"}),
    ("save_odds", {"target": "kobold_1", "ability": "dex", "dc": 15}),
    ("area_targets", {"what": "burning-hands", "direction": "SE"}),
    ("area_targets", {"what": "cold-breath", "user": "wyrmling", "direction": "W"}),
    ("routes", {"x": 5, "y": 3}),
    ("routes", {"creature": "fighter", "x": 10, "y": 3}),
    ("creature", {"name": "kobold_2"}),
    ("condition", {"name": "restrained"}),
    ("spell", {"name": "magic-missile"}),
    ("attack_odds", {"attack": "nope", "target": "kobold_1"}),
    ("routes", {"x": -1, "y": 0}),
]


@pytest.mark.parametrize("scenario", ["wyrmling_lair", "goblin_ambush", "orc_raid"])
def test_no_tool_changes_the_battle(scenario):
    env = _env(scenario, seed=3)
    tools = tools_for(env)
    for step in range(6):         # several decisions into the fight, not only the first
        b = env.unwrapped.battle
        if b.outcome is not None:
            break
        names = sorted(b.creatures)
        calls = CALLS + [("creature", {"name": n}) for n in names] + [
            ("routes", {"creature": n, "x": 2, "y": 2}) for n in names]
        before = _snapshot(b)
        for name, args in calls:
            result = tools.call(name, args, env)
            json.dumps(result)                     # JSON-able
            assert _snapshot(b) == before, (name, args)
        env.step(0)


# ------------------------------------------------------------------ bad arguments
@pytest.mark.parametrize("name,args,says", [
    ("attack_odds", {"attack": "dagger", "target": "nobody"}, "no creature 'nobody'"),
    ("attack_odds", {"attack": "warhammer", "target": "kobold_1"}, "has no attack"),
    ("attack_odds", {"target": "kobold_1"}, "missing argument"),
    ("attack_odds", {"attack": "dagger", "target": "kobold_1", "mood": "x"}, "unknown argument"),
    ("save_odds", {"target": "kobold_1", "ability": "luck", "dc": 10}, "must be one of"),
    ("save_odds", {"target": "kobold_1", "ability": "dex", "dc": "ten"}, "must be an integer"),
    ("save_odds", {"target": "kobold_1", "ability": "dex", "dc": True}, "must be an integer"),
    ("area_targets", {"what": "burning-hands"}, "give x and y"),
    ("area_targets", {"what": "fire-bolt", "direction": "N"}, "not an area spell"),
    ("area_targets", {"what": "fireball", "x": 1, "y": 1}, "no area spell or save action"),
    ("area_targets", {"what": "burning-hands", "direction": "UP"}, "must be one of"),
    ("area_targets", {"what": "burning-hands", "direction": "N", "level": 0}, "cannot be cast"),
    ("routes", {"x": 99, "y": 1}, "off the map"),
    ("creature", {"name": "Smaug"}, "no creature"),
    ("condition", {"name": "sleepy"}, "no condition"),
    ("spell", {"name": "fire-boltt"}, "did you mean"),
    ("teleport", {}, "no tool 'teleport'"),
    ("creature", ["kobold_1"], "JSON object"),
])
def test_bad_arguments_are_error_objects(wyrmling, name, args, says):
    before = _snapshot(wyrmling.unwrapped.battle)
    result = tools_for(wyrmling).call(name, args, wyrmling)
    assert set(result) == {"error"} and says in result["error"], result
    assert _snapshot(wyrmling.unwrapped.battle) == before


def test_a_failing_tool_never_raises():
    def boom(context, **kwargs):
        raise RuntimeError("engine bug")

    tools = ToolSet("x", [Tool("boom", "fails", {"type": "object", "properties": {}}, boom)], lambda env: 1)
    assert tools.call("boom", {}, None) == {"error": "boom failed: RuntimeError: engine bug"}
    tools = ToolSet("x", [Tool("boom", "fails", {"type": "object", "properties": {}}, boom)], lambda env: None)
    assert "episode is over" in tools.call("boom", {}, None)["error"]


# ------------------------------------------------------------------ the agent's loop
def test_agent_calls_attack_odds_then_answers(wyrmling):
    env = wyrmling
    script = [{"tool_calls": [{"name": "attack_odds",
                               "arguments": {"attack": "dagger-thrown", "target": "kobold_2"}}]}, "0"]
    client = ScriptedClient(script)
    agent = LLMAgent(client, tools=True)
    obs, info = env.reset(seed=0)
    agent.reset(env, 0)
    before = _snapshot(env.unwrapped.battle)
    expected = lookup.attack_odds(env.unwrapped.battle, "wizard", "dagger-thrown", "kobold_2")
    action = agent.act(obs, info)
    assert _snapshot(env.unwrapped.battle) == before
    record = agent.last_record
    assert action == 0 and not record["fell_back"] and record["parsed"]["index"] == 0
    assert record["tool_count"] == 1 and record["model_calls"] == 2
    (call,) = record["tool_calls"]
    assert call["name"] == "attack_odds" and call["error"] is None
    assert call["args"] == {"attack": "dagger-thrown", "target": "kobold_2"}
    # the tools were declared on both requests; the second carries the call and its result
    assert [t["name"] for t in client.tools_offered[0]][:2] == ["attack_odds", "save_odds"]
    assert client.tools_offered[1] == client.tools_offered[0]
    second = client.calls[1]
    assistant, result = second[-2], second[-1]
    assert assistant["role"] == "assistant" and assistant["tool_calls"][0]["name"] == "attack_odds"
    assert result["role"] == "tool" and result["tool_call_id"] == assistant["tool_calls"][0]["id"]
    assert json.loads(result["content"]) == expected
    assert call["result_chars"] == len(result["content"])
    assert "lookup tools" in client.calls[0][-1]["content"]
    # the episode's usage counts tools per decision
    usage = _llm_usage(agent, [{"agent": record}])
    assert usage["tool_calls"] == 1 and usage["tools_per_decision"] == 1.0
    assert usage["tools"].startswith("on: attack_odds")


def test_tool_calls_are_bounded_per_decision(wyrmling):
    greedy = {"tool_calls": [{"name": "creature", "arguments": {"name": "kobold_1"}},
                             {"name": "condition", "arguments": {"name": "prone"}},
                             {"name": "creature", "arguments": {"name": "nobody"}}]}
    client = ScriptedClient([greedy, greedy, "1"], cycle=False)
    agent = LLMAgent(client, tools=True, max_tool_calls=4)
    obs, info = wyrmling.reset(seed=0)
    agent.reset(wyrmling, 0)
    action = agent.act(obs, info)
    record = agent.last_record
    assert record["tool_count"] == 4                       # the budget, no more
    counted = [c for c in record["tool_calls"] if c["counted"]]
    refused = [c for c in record["tool_calls"] if not c["counted"]]
    assert len(counted) == 4 and refused and all("no tool calls left" in c["error"] for c in refused)
    assert counted[2]["error"].startswith("no creature")   # a bad call still counts
    # the budget spent, the last request declares no tools: the model can only answer, and
    # the exchange so far reaches it as text
    assert client.tools_offered[0] and client.tools_offered[1] and client.tools_offered[2] is None
    last = client.calls[-1]
    assert not any(m["role"] == "tool" or m.get("tool_calls") for m in last)
    assert 'CALL creature {"name": "kobold_1"}' in last[-4]["content"]
    assert last[-1]["content"].startswith("Result of creature: ")
    assert last[-1]["content"].endswith("answer with one legal option now.")
    assert record["model_calls"] == 3 and action == 1 and not record["fell_back"]
    assert all(c["round_trip"] for c in record["tool_calls"])


def test_client_without_tools_native_only_plays_without_them_and_says_so(wyrmling):
    client = ScriptedClient(["1"], supports_tools=False)
    agent = LLMAgent(client, tools=True, tool_protocol="native")
    obs, info = wyrmling.reset(seed=0)
    with pytest.warns(UserWarning, match="does not support function calling"):
        agent.reset(wyrmling, 0)
    agent.act(obs, info)
    assert client.tools_offered == [None]
    assert agent.last_record["tools"].startswith("off: the client fake/scripted does not support")
    assert agent.last_record["tool_count"] == 0


def test_text_protocol_round_trip_without_function_calling(wyrmling):
    # issue 21: servers and models without native tools get them described in the prompt
    # and call them with a "CALL name {json}" line; the result comes back as a user turn
    client = ScriptedClient(['CALL creature {"name": "wyrmling"}', "1"], supports_tools=False)
    agent = LLMAgent(client, tools=True)          # auto: text, as the client has no tools
    obs, info = wyrmling.reset(seed=0)
    before = wyrmling.unwrapped.battle.to_dict()
    agent.reset(wyrmling, 0)
    action = agent.act(obs, info)
    record = agent.last_record
    assert action == 1 and not record["fell_back"] and record["tool_protocol"] == "text"
    assert client.tools_offered == [None, None]          # never sent as native declarations
    first, second = client.calls
    assert "CALL <tool>" in first[-1]["content"] and "- creature(name)" in first[-1]["content"]
    assert second[-2] == {"role": "assistant", "content": 'CALL creature {"name": "wyrmling"}'}
    assert second[-1]["role"] == "user" and second[-1]["content"].startswith("Result of creature: {")
    (call,) = record["tool_calls"]
    assert call["name"] == "creature" and call["round_trip"] and call["error"] is None
    assert wyrmling.unwrapped.battle.to_dict() == before   # look-ups change nothing


def test_tagged_tool_calls_are_read_too(wyrmling):
    client = ScriptedClient(['<tool_call>{"name": "condition", "arguments": {"name": "prone"}}'
                             '</tool_call>', "Final answer: 1"], supports_tools=False)
    agent = LLMAgent(client, tools=True, tool_protocol="text")
    obs, info = wyrmling.reset(seed=0)
    agent.reset(wyrmling, 0)
    assert agent.act(obs, info) == 1
    (call,) = agent.last_record["tool_calls"]
    assert call["name"] == "condition" and call["round_trip"] and call["error"] is None


def test_a_server_that_ignores_native_tools_is_said_once_and_auto_goes_text(wyrmling):
    class Ignoring(ScriptedClient):      # counts the chat only, like a server that drops tools
        def complete(self, messages, tools=None):
            completion = super().complete(messages, tools)
            completion.prompt_tokens = sum(len(str(m.get("content", "")).split()) for m in messages)
            return completion

    from dungeonbench_gym.llm import agent as agent_module
    agent_module._IGNORED_TOOLS.clear()
    # three plain answers whose prompts left the declarations out (a function-calling server
    # may answer a text reply from a tool-free prompt, so one is not enough to judge)
    client = Ignoring(["banana", "banana", "1", 'CALL condition {"name": "prone"}', "1"],
                      model="ignoring")
    agent = LLMAgent(client, tools=True)
    obs, info = wyrmling.reset(seed=0)
    agent.reset(wyrmling, 0)
    with pytest.warns(UserWarning, match="ignored the native tool declarations"):
        agent.act(obs, info)
    assert client.tools_offered[:3] == [client.tools_offered[0]] * 3 and client.tools_offered[0]
    assert agent.last_record["tools"].startswith("native ignored")
    obs, _, _, _, info = wyrmling.step(1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")          # said once
        agent.act(obs, info)
    assert agent.last_record["tool_protocol"] == "text"
    assert client.tools_offered[-1] is None and agent.last_record["tool_calls"][0]["round_trip"]


def test_families_without_tools_and_agents_without_tools():
    env = dungeonbench_gym.make("BabyAI-GoTo-v0", text=True)
    obs, info = env.reset(seed=0)
    client = ScriptedClient(["1"])
    agent = LLMAgent(client, tools=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        agent.reset(env, 0)
    agent.act(obs, info)
    assert client.tools_offered == [None] and "family has no tools" in agent.last_record["tools"]
    plain = LLMAgent(ScriptedClient(["1"]))          # tools off: the record is as before
    plain.reset(env, 0)
    plain.act(obs, info)
    assert "tool_calls" not in plain.last_record and plain.client.tools_offered == [None]


def test_agent_spec_and_cli_carry_tools():
    spec = AgentSpec.create("llm", client="fake", model="first", tools=True, max_tool_calls=2)
    assert spec.label == "llm-fake-first-direct-tools"
    agent = make_llm_agent(spec)
    assert agent.tools and agent.max_tool_calls == 2 and agent.describe()["tools"] is True
    from dungeonbench_gym.cli import build_parser
    args = build_parser().parse_args(["eval", "--agent", "llm", "--client", "fake", "--tools",
                                      "--max-tool-calls", "3"])
    assert args.tools and args.max_tool_calls == 3


def test_agent_with_the_openai_client_over_http(wyrmling):
    """The whole loop on the wire: tools declared, the call answered with its id, then the answer."""
    from test_llm_clients import FakeServer, chat_answer, openai_tool_call_answer

    from dungeonbench_gym.llm.clients import OpenAICompatibleClient

    server = FakeServer()
    try:
        server.answer({"body": openai_tool_call_answer(
                          "call_xyz", '{"attack": "dagger-thrown", "target": "kobold_2"}')},
                      {"body": chat_answer("0")})
        client = OpenAICompatibleClient("m", base_url=server.url + "/v1", sleep=lambda s: None)
        agent = LLMAgent(client, tools=True)
        obs, info = wyrmling.reset(seed=0)
        agent.reset(wyrmling, 0)
        expected = lookup.attack_odds(wyrmling.unwrapped.battle, "wizard", "dagger-thrown", "kobold_2")
        assert agent.act(obs, info) == 0
        # the chat requests (the client also probes the server's context and tokenizer)
        first, second = (r["json"] for r in server.requests if r["path"] == "/v1/chat/completions")
        assert {t["function"]["name"] for t in first["tools"]} == set(tools_for(wyrmling).tools)
        assert all(t["type"] == "function" and t["function"]["parameters"]["type"] == "object"
                   for t in first["tools"])
        assistant, tool = second["messages"][-2:]
        assert assistant["tool_calls"][0]["id"] == "call_xyz"
        assert tool["role"] == "tool" and tool["tool_call_id"] == "call_xyz"
        assert json.loads(tool["content"]) == expected
        record = agent.last_record
        assert record["tool_count"] == 1 and record["prompt_tokens"] == 50 + 11
    finally:
        server.close()


def test_a_server_refusing_tools_for_the_model_goes_text(wyrmling):
    # Ollama: HTTP 400 "<model> does not support tools" when tools are declared
    class Refusing(ScriptedClient):
        def complete(self, messages, tools=None):
            if tools:
                raise ClientError("openai gemma:2b: HTTP 400 from http://127.0.0.1:11434/v1/"
                                  "chat/completions: registry.ollama.ai/library/gemma:2b does "
                                  "not support tools")
            return super().complete(messages, tools)

    from dungeonbench_gym.llm import agent as agent_module
    agent_module._IGNORED_TOOLS.clear()
    client = Refusing(["1"], model="gemma:2b")
    agent = LLMAgent(client, tools=True)
    obs, info = wyrmling.reset(seed=0)
    agent.reset(wyrmling, 0)
    with pytest.warns(UserWarning, match="does not support tools"):
        assert agent.act(obs, info) == 1
    record = agent.last_record
    assert record["tool_protocol"] == "text" and not record["fell_back"]
    assert "CALL <tool>" in client.calls[-1][-1]["content"]


def test_every_string_argument_is_bounded_and_fits_every_name():
    # grammar-constrained servers (llama.cpp's function calling) bound a string argument only
    # by its maxLength: without one a small model wrote 3,791 tokens into one argument
    from dungeonbench_gym.dnd import content
    from dungeonbench_gym.llm.dnd_tools import MAX_STRING_CHARS, dnd_toolset

    strings = [(spec["name"], name, schema) for spec in dnd_toolset().specs()
               for name, schema in spec["parameters"]["properties"].items() if schema["type"] == "string"]
    assert len(strings) >= 10
    assert all(schema.get("maxLength") == MAX_STRING_CHARS for _, _, schema in strings), strings
    # ...long enough for every key a model may need to write, and a creature id ("<monster>_12")
    keys = [*content.spells(), *content.conditions(), *(f"{key}_12" for key in content.monsters())]
    keys += [*content.weapons(), *(action.key for monster in content.monsters().values()
                                   for action in monster.all_actions)]
    assert max(map(len, keys)) <= MAX_STRING_CHARS


def test_a_server_that_made_a_native_call_is_never_taken_for_one_ignoring_tools(wyrmling):
    class LowCounts(ScriptedClient):     # answers text replies with tool-free prompt counts
        def complete(self, messages, tools=None):
            completion = super().complete(messages, tools)
            completion.prompt_tokens = sum(len(str(m.get("content", "")).split()) for m in messages)
            return completion

    from dungeonbench_gym.llm import agent as agent_module
    agent_module._IGNORED_TOOLS.clear()
    call = {"tool_calls": [{"name": "condition", "arguments": {"name": "prone"}}], "text": ""}
    client = LowCounts([call, "1", "banana", "banana", "banana", "1"], model="low-counts")
    agent = LLMAgent(client, tools=True, max_retries=2)
    obs, info = wyrmling.reset(seed=0)
    agent.reset(wyrmling, 0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        agent.act(obs, info)
        obs, _, _, _, info = wyrmling.step(1)
        agent.act(obs, info)
    assert agent.last_record["tool_protocol"] == "native" and all(client.tools_offered)
