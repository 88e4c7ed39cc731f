"""Reading an Inform 6 game's rule routines (issue 22, speed): a candidate is left untried
only where the game's own code shows that no rule can make it do anything. The story is
compiled here from the source below, so every expectation follows from the Inform
Designer's Manual (4th ed.): a `before` answers the actions it names and, with no
`default:`, returns false for the rest (section 6); `life` hears the conversation
actions of a character, whose topic word is `second` (section 18); the object something
is put in or on hears the fake action Receive (section 6, table of fake actions)."""

import shutil
import subprocess
import warnings

import pytest

from dungeonbench_gym.games.textadventure.actions import ActionDetector, inform_layout
from dungeonbench_gym.games.textadventure.zcode import action_cases, decode, routine_start
from dungeonbench_gym.games.textadventure.zmachine import Story

RULES = r"""
Constant Story "RULES";
Constant Headline "^A test of rule routines.^";
Include "Parser";
Include "VerbLib";
Global statue_rocked; Global bell_rung; Global crate_hit; Global urn_fed;
Global told_riddle; Global told_weather;
Object Hall "Hall"
  with description "A bare hall.",
  has  light;
Object -> statue "marble statue"
  with name 'marble' 'statue',
       before [;
         Push: statue_rocked = 1; "It rocks on its plinth.";
         Take: "Far too heavy.";
         default: "The statue ignores you.";
       ],
  has  static;
Object -> bell "brass bell"
  with name 'brass' 'bell',
       before [; Pull: bell_rung = 1; "Ding."; ],
  has  static;
Object -> crate "wooden crate"
  with name 'wooden' 'crate', hits 0,
       before [; self.hits = self.hits + 1; if (self.hits > 99) crate_hit = 1; ],
  has  static;
Object -> urn "stone urn"
  with name 'stone' 'urn',
       before [; Receive: urn_fed = 1; "The urn swallows it."; ],
  has  static;
Object -> plinth "empty plinth"
  with name 'empty' 'plinth',
  has  static;
Object -> sage "old sage"
  with name 'old' 'sage',
       life [;
         Ask: switch (second) {
           'riddle': told_riddle = 1; "~A candle,~ says the sage.";
           'weather': told_weather = 1; "~Rain,~ says the sage.";
         }
         "The sage shrugs.";
       ],
  has  animate;
Object -> dog "sleepy dog"
  with name 'sleepy' 'dog',
       life [; WakeOther: "The dog snores on."; ],
  has  animate;
Object -> rug "dusty rug"
  with name 'dusty' 'rug',
       before [; LookUnder: if (parent(iron_key) ~= nothing) rfalse; move iron_key to Hall;
                 "Under the rug lies an iron key."; ],
  has  static;
Object iron_key "iron key"
  with name 'iron' 'key';
Object -> coin "gold coin"
  with name 'gold' 'coin';
[ Initialise; location = Hall; move coin to player; ];
Include "Grammar";
"""


@pytest.fixture(scope="module")
def story(tmp_path_factory):
    assert shutil.which("inform6"), "no inform6: scripts/setup installs Debian's inform6-compiler"
    folder = tmp_path_factory.mktemp("rules")
    source, path = folder / "rules.inf", folder / "rules.z5"
    source.write_text(RULES)
    subprocess.run(["inform6", "-v5", "+include_path=/usr/share/inform6/library",
                    str(source), str(path)], check=True, capture_output=True)
    return Story(path)


@pytest.fixture
def detector(story):
    import jericho
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        frotz = jericho.FrotzEnv(str(story.path), seed=1)
    frotz.reset()
    yield ActionDetector(frotz, story)
    frotz.close()


def _action(story, verb):
    """The action of a verb's one-object grammar line ("push noun" -> Push)."""
    return next(line.action for line in story.grammar[verb]
                if [s[0] for s in line.slots] == ["object"])


def _rule(story, name, prop_name):
    """The packed address in an object's rule property, as the story file starts."""
    obj = next(o for o in story.initial_objects.values() if o.name == name)
    layout = inform_layout(story, story.initial_objects, story.data[:story.static_base])
    data = story.property(story.data, obj.number, getattr(layout, prop_name))
    return data[0] << 8 | data[1]


def _action_variable(story):
    """sw__var: the variable the first instruction of the statue's before tests."""
    start = routine_start(story.data, _rule(story, "marble statue", "before"), story.version)
    first = decode(story.data, start, story.version)
    assert (first.kind, first.number) == ("2OP", 1)        # je
    return frozenset({first.operands[0][1]})


def test_a_before_answers_the_actions_it_names(story):
    variables = _action_variable(story)
    cases = action_cases(story.data, _rule(story, "marble statue", "before"), story.version,
                         variables)
    # a default: that only prints changes nothing for the other actions
    assert cases == {_action(story, "push"), _action(story, "take")}
    assert action_cases(story.data, _rule(story, "brass bell", "before"), story.version,
                        variables) == {_action(story, "pull")}


def test_a_rule_that_acts_on_every_action_cannot_be_narrowed(story):
    # the crate's before counts every action in a property: it answers them all
    assert action_cases(story.data, _rule(story, "wooden crate", "before"), story.version,
                        _action_variable(story)) is None


def _candidates(detector):
    state = detector.frotz.get_state()
    scope, held, names, room = detector._scope(state[0])
    return list(detector._candidates(scope, held, names, room))


def test_only_actions_some_rule_answers_are_tried(detector):
    candidates = _candidates(detector)
    # push and pull: the library never lets them change anything (DM4 section 6)
    assert "pull bell" in candidates and "push bell" not in candidates
    assert "push statue" in candidates and "pull statue" not in candidates
    assert "push crate" in candidates and "pull crate" in candidates    # rules unread
    assert "push plinth" not in candidates
    labels = detector.detect().labels
    assert {"pull bell", "push statue"} <= set(labels)
    assert "pull crate" not in labels         # tried, and it changes nothing yet


def test_the_receiver_of_a_put_is_tried_when_it_hears_receive(detector):
    candidates = _candidates(detector)
    assert "put coin in urn" in candidates         # not a container, but it hears Receive
    assert "put coin in plinth" not in candidates  # neither a container nor any rules
    assert "put coin in urn" in detector.detect().labels


def test_a_character_is_asked_about_the_words_its_rules_name(detector):
    asked = [c for c in _candidates(detector) if c.startswith("ask sage about ")]
    topics = {c.split()[-1] for c in asked}
    assert {"riddle", "weather"} <= topics
    assert len(topics) == 4                 # and two other topics, for the shrug
    labels = detector.detect().labels
    assert "ask sage about riddle" in labels and "ask sage about weather" in labels



def test_a_character_whose_rules_hear_no_question_is_not_asked(detector):
    # the dog's life answers WakeOther only: asked anything, the library says "There
    # is no reply" and nothing changes (DM4 section 18)
    candidates = _candidates(detector)
    assert any(c.startswith("ask sage about ") for c in candidates)
    assert not any(c.startswith(("ask dog about ", "tell dog about ")) for c in candidates)
    assert "wake dog" in candidates


def test_looking_under_is_tried_where_a_rule_answers_it(detector):
    # the library's LookUnder only describes (DM4 section 6); the rug's rule moves a key
    candidates = _candidates(detector)
    assert "look under rug" in candidates and "look under plinth" not in candidates
    assert "search rug" not in candidates and "examine plinth" not in candidates
    assert "look under rug" in detector.detect().labels


def test_the_decoder_reads_every_rule_of_the_shipped_games():
    """Z-Machine Standard section 4: every instruction the compiler wrote in the shipped
    games' rule routines (and the routines they call) decodes, so each routine's code
    is read to its returns."""
    from dungeonbench_gym.games.textadventure.env import game_files, shipped_games
    from dungeonbench_gym.games.textadventure.zcode import routine_words
    read = 0
    for game in shipped_games():
        story = Story(game_files(game)["story"])
        memory = story.data[:story.static_base]
        layout = inform_layout(story, story.initial_objects, memory)
        for obj in story.initial_objects.values():
            for prop in (layout.before, layout.life, layout.react_before):
                data = story.property(memory, obj.number, prop)
                for i in range(0, len(data) - 1, 2):
                    packed = data[i] << 8 | data[i + 1]
                    if packed in (0, 0xFFFF):
                        continue
                    assert routine_words(story.data, packed, story.version,
                                         story.dictionary) is not None, (game, obj.name)
                    read += 1
    assert read > 50
