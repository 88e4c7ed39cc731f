"""Valid actions of a Z-machine game, found by trying them (our own detector).

Jericho's detector needs per-game support and a spaCy model, and takes about a
second a call. Ours works on any story file:

1. Candidates. The objects in reach come from the object tree in memory (the
   player's room and everything in it, the inventory; not the contents of closed
   opaque containers), each named by the shortest words of its name property
   that tell it apart (Inform 7 games: from the nouns `look` and `inventory`
   print). Verb templates (below) are kept when the game's dictionary knows their
   words and its grammar table has a line of that shape; the game's own verbs
   are tried in the shapes of their grammar lines. Topics for ask/tell are the
   objects, the nouns just printed and the game's nouns that name no object.
2. Effects. Each candidate is played from a snapshot of the interpreter and
   the snapshot restored. Its effect is what changed in the object tree, the
   property tables (common and individual) and the global variables, less
   "noise": what changes when nothing happens (waiting, a command the parser
   rejects, examining each object), such as the turn counter, the parser's
   variables and pronouns.
3. Merging. Candidates with an empty effect are dropped; those with the same
   effect are one option, labelled by its shortest command, the first in
   template order among equals ("fill can" rather than "put can in pool").

"look", "inventory" and "wait" are always options (they change nothing, but a
player needs them, and they keep the mask from being empty).

For Inform 6 games (the library's attribute numbers are known) templates whose
object cannot qualify are skipped before they are tried: "open" needs an
openable, closed object; "put X in Y" a container; etc., unless a rule answers
the action: the rule routines are decoded (`zcode.py`) for the actions they name,
and a character's for the topic words they name. Other games try every template.
docs/textadventures.md has the whole account and the measured recall.
"""

from __future__ import annotations

import re
import time
import warnings
from collections import Counter, OrderedDict
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from functools import cached_property

import numpy as np

from .zcode import action_cases, decode, routine_start, routine_words
from .zmachine import INFORM_NOUN, Story, ZObject

ALWAYS = ("look", "inventory", "wait")

DIRECTIONS = (("north", "n"), ("south", "s"), ("east", "e"), ("west", "w"),
              ("northeast", "ne"), ("northwest", "nw"), ("southeast", "se"),
              ("southwest", "sw"), ("up", "u"), ("down", "d"), ("in", "inside"),
              ("out", "outside"))

# Inform 6 library attribute numbers (linklpa.h, library 6/11 and 6.12 alike).
ANIMATE, CLOTHING, CONTAINER, EDIBLE, ENTERABLE = 0, 2, 4, 6, 7
LOCKABLE, LOCKED, ON, OPEN, OPENABLE = 10, 11, 13, 14, 15
SCENERY, STATIC, SUPPORTER, SWITCHABLE, TRANSPARENT, WORN = 17, 19, 20, 21, 23, 26


@dataclass(frozen=True, slots=True)
class Template:
    """A command shape: `{o}` an object in reach, `{h}` a held one, `{t}` a topic."""
    text: str
    first: str = ""          # role of {o}/{h} in the first slot: "near", "held", "any"
    second: str = ""         # role of the second object, if any ("topic": a word)
    needs: tuple = ()        # Inform 6 attribute tests on the first object: (attr, present)
    needs2: tuple = ()       # ... and on the second
    generic: bool = False    # the library's default never changes the world
    strict: bool = False     # the first object must meet needs (rules do not count)
    strict2: bool = False    # the second object must meet needs2 (rules do not count)
    rules_only: bool = False  # tried only where rules are read, never on every object

    # With pruning (Inform 6 games), a candidate is tried when the library's own
    # action could change something (`needs` hold), or when an object involved, the
    # room or anything in reach has rules of its own (a `before`, `life` or
    # `react_before` property), which can make any action do anything.

    @property
    def words(self) -> list[str]:
        return [w for w in self.text.split() if not w.startswith("{")]


T = Template
TEMPLATES: tuple[Template, ...] = (
    T("take {o}", "near", needs=((STATIC, False), (SCENERY, False), (ANIMATE, False))),
    T("drop {h}", "held"),
    T("open {o}", "any", needs=((OPENABLE, True), (OPEN, False), (LOCKED, False))),
    T("close {o}", "any", needs=((OPENABLE, True), (OPEN, True))),
    T("take all"), T("drop all"),
    T("take all from {o}", "near", needs=((CONTAINER, True), (OPEN, True)), strict=True),
    T("take all from {o}", "near", needs=((SUPPORTER, True),), strict=True),
    T("put all in {o}", "any", needs=((CONTAINER, True), (OPEN, True)), strict=True),
    T("put all on {o}", "any", needs=((SUPPORTER, True),), strict=True),
    T("unlock {o} with {h}", "near", "held", needs=((LOCKABLE, True), (LOCKED, True)),
      strict=True),
    # the key left for the game to infer, as classic games do ("unlock car")
    T("unlock {o}", "near", needs=((LOCKABLE, True), (LOCKED, True)), strict=True),
    T("lock {o} with {h}", "near", "held", needs=((LOCKABLE, True), (LOCKED, False),
                                                    (OPEN, False)), strict=True),
    T("put {h} in {o}", "held", "any", needs2=((CONTAINER, True),)),
    T("put {h} on {o}", "held", "any", needs2=((SUPPORTER, True),), strict2=True),
    T("wear {h}", "held", needs=((CLOTHING, True), (WORN, False))),
    T("take off {h}", "held", needs=((WORN, True),)),
    T("eat {o}", "any", needs=((EDIBLE, True),), strict=True),
    T("enter {o}", "near", needs=((ENTERABLE, True),)),
    T("switch on {o}", "any", needs=((SWITCHABLE, True), (ON, False)), strict=True),
    T("switch off {o}", "any", needs=((SWITCHABLE, True), (ON, True)), strict=True),
    T("give {h} to {o}", "held", "near", needs2=((ANIMATE, True),), strict2=True),
    # topics: what is in reach and the nouns the game has just printed
    T("ask {o} about {t}", "near", "topic", needs=((ANIMATE, True),), strict=True),
    T("tell {o} about {t}", "near", "topic", needs=((ANIMATE, True),), strict=True),
    T("show {h} to {o}", "held", "near", needs2=((ANIMATE, True),), strict2=True),
    T("fill {o} with {h}", "any", "held", generic=True),
    T("light {o}", "any", generic=True), T("fill {o}", "any", generic=True),
    T("empty {o}", "any", generic=True), T("push {o}", "near", generic=True),
    T("pull {o}", "near", generic=True), T("turn {o}", "near", generic=True),
    T("climb {o}", "near", generic=True), T("attack {o}", "near", generic=True),
    T("drink {o}", "any", generic=True),
    # the library only describes: worth trying where rules answer them (a rug hiding
    # a trapdoor, a coat with something in its pocket)
    T("examine {o}", "any", generic=True, rules_only=True),
    T("search {o}", "near", generic=True, rules_only=True),
    T("look under {o}", "near", generic=True, rules_only=True),
    T("wake {o}", "near", needs=((ANIMATE, True),)),
    T("throw {h} at {o}", "held", "near", needs2=((ANIMATE, True),), strict2=True),
    T("yes"), T("no"),                 # answers, when the game has asked something
    T("get out"), T("stand up"), T("jump"), T("pray"), T("sleep"), T("swim"), T("dig"),
)

# The Inform 6 library's verbs (library 6.12, grammar.h), one group of synonyms per
# declaration. A game verb in one of these groups is the library's (its templates
# above, or a verb that only informs, which the effect test would drop anyway)
# unless the game split it off with `Extend only` (e.g. "feed" as its own verb):
# the dictionary then gives it another verb number than its group.
LIBRARY_VERBS = tuple(group.split() for group in """
brief; verbose long; superbrief short; normal; notify; pronouns nouns; quit q die; recording;
replay; restart; restore; save; score; fullscore full; script transcript; noscript unscript;
verify; version; objects; places; actions; changes; gonear; goto; random; routines messages;
scope; showdict dict; showobj; showverb; timers daemons; trace; abstract; purloin; tree;
glklist; answer say shout speak; ask; attack break crack destroy fight hit kill murder punch
smash thump torture wreck; blow; bother curses darn drat; burn light; buy purchase; climb scale;
carry; close cover shut; consult; cut chop prune slice; dig; disrobe doff shed; drink sip
swallow; drop discard; throw; eat; empty; enter cross; examine x check describe watch; exit out
outside; fill; get; give feed offer pay; go run walk; hold; in inside; insert; inventory inv i;
jump hop skip; kiss embrace hug; leave; listen hear; lock; look l; no; open uncover undo unwrap;
peel; pick; pray; pry prise prize lever jemmy force; pull drag; push clear move press shift;
put; read; remove; rub clean dust polish scrub shine sweep wipe; search; set adjust; show
display present; shit damn fuck sod; sing; sit lie; sleep nap; smell sniff; sorry; squeeze
squash; stand; swim dive; swing; switch; take; taste; tell; think; tie attach connect fasten
fix; touch feel fondle grope; transfer; turn rotate screw twist unscrew; unlock; wait z; wake
awake awaken; wave; wear don; yes y
""".replace("\n", " ").split(";"))
# Never tried alone either: directions, and words some libraries make verbs.
OTHER_VERBS = frozenset("""again g oops o diagnose hint hints help about credits info
n s e w ne nw se sw u d north south east west northeast northwest southeast southwest up down
""".split())

META_VERBS = frozenset({"save", "restore", "restart", "quit", "q", "undo", "script",
                        "transcript", "unscript", "noscript", "recording", "replay", "verify"})

_JUNK = "zqxv"    # a word no game knows


@dataclass
class ActionSet:
    """The valid actions of one state, in canonical order."""
    labels: list[str]                     # one per option
    members: list[tuple[str, ...]]        # the candidate commands each option stands for
    effects: list[tuple]                  # each option's effect key (ALWAYS: ())
    candidates: int = 0                   # commands tried
    seconds: float = 0.0                  # time spent finding them
    cached: bool = False
    scope: tuple[str, ...] = field(default=())   # the objects in reach, by label
    room: str = ""                               # the room's short name
    inventory: tuple[str, ...] = field(default=())   # the held objects' short names
    scratch: frozenset[int] = frozenset()        # addresses left out of effects here


class ActionDetector:
    """Finds the valid actions of the current state of a Jericho `FrotzEnv`."""

    def __init__(self, frotz, story: Story, *, cache_size: int = 512, prune: bool | None = None,
                 workers: int = 1):
        self.frotz = frotz
        self.story = story
        # Extra interpreters try candidates in parallel threads (Jericho loads a
        # private copy of Frotz per instance, and ctypes releases the GIL).
        self.workers = max(1, int(workers))
        self._pool = None
        self._interpreters: list = []
        self._library_globals: np.ndarray | None = None
        # Inform 7 compiles through Inform 6 but with its own library: other attribute
        # numbers (no pruning), names given by routines (read from the text instead),
        # and globals that are mostly the library's scratch (effects are the tree's).
        self.inform7 = is_inform7(story)
        self.prune = (story.inform_version.startswith("6") and not self.inform7) \
            if prune is None else prune
        self._heard: tuple[str, ...] = ()   # nouns the game printed last (topics)
        self._cache: OrderedDict[bytes, ActionSet] = OrderedDict()
        self._cache_size = cache_size
        words = story.words
        self.directions = [next((w for w in names if w in words), None) for names in DIRECTIONS]
        self.directions = [d for d in self.directions if d]
        # Where the game's grammar can be read, a template is tried only when one of its
        # verb's lines takes that shape (or begins with it and leaves the parser the
        # rest to infer: "unlock van" for "unlock * noun 'with' held").
        self.grammar = story.grammar
        self.templates = [t for t in TEMPLATES if all(story.knows(w) for w in t.words)
                          and (self.grammar is None or _in_grammar(t.text, story))]
        # the action numbers each template can parse to (None: the grammar is unknown)
        self._template_actions = {t.text: _grammar_actions(t.text, story) if self.grammar
                                  else None for t in self.templates}
        self._rule_cases: dict[int, frozenset[int] | None] = {}   # routine -> its actions
        self._routine_words: dict[int, frozenset[int] | None] = {}   # routine -> words named
        # The game's own verbs: in the shapes of their grammar lines where it is known,
        # else alone and with each object.
        self.own_verbs = own_verbs(story) if story.inform_version.startswith("6") else []
        self._region: np.ndarray | None = None
        self._player: int | None = None         # the self object
        self._player_globals: list[int] | None = None
        self._current_player: int | None = None  # the body the player has now
        self._raw = b""
        self._layout: InformLayout | None | bool = None   # False: not an Inform library game

    # ------------------------------------------------------------------ API
    def detect(self) -> ActionSet:
        """The valid actions now; the interpreter is left exactly as it was."""
        start = time.perf_counter()
        state = self.frotz.get_state()
        ram = state[0]
        # memory, the top of the stack and the random-number generator: what the
        # candidates' effects depend on
        key = ram.tobytes() + state[1].tobytes()[:64] + repr(state[7]).encode() + \
            " ".join(self._heard).encode()
        hit = self._cache.get(key)
        if hit is not None:
            self._cache.move_to_end(key)
            return ActionSet(hit.labels, hit.members, hit.effects, 0,
                             time.perf_counter() - start, True, hit.scope, hit.room,
                             hit.inventory, hit.scratch)
        try:
            result = self._detect(state, ram)
        finally:
            self.frotz.set_state(state)
        result.seconds = time.perf_counter() - start
        self._cache[key] = result
        if len(self._cache) > self._cache_size:
            self._cache.popitem(last=False)
        return result

    def hear(self, text: str) -> None:
        """What the game printed last: its nouns are topics for ask/tell."""
        self._heard = tuple(dict.fromkeys(self._nouns(text)))

    def _nouns(self, text: str) -> list[str]:
        """Words of `text` the game's dictionary knows as nouns (not articles)."""
        return [t for t in _TOKEN.findall(text.lower()) if self._is_noun(t)]

    def _is_noun(self, token: str) -> bool:
        return bool(self._flags.get(self.story.cut(token), 0) & INFORM_NOUN) and token not in _STOP

    def effect_of(self, command: str, noise: np.ndarray | None = None) -> tuple:
        """The effect key of one command from the current state (state kept)."""
        state = self.frotz.get_state()
        ram = state[0]
        try:
            if noise is None:
                noise = self._noise(state, ram, self._scope(ram)[0])
            return self._effect(state, ram, command, noise)
        finally:
            self.frotz.set_state(state)

    def option_for(self, command: str, actions: ActionSet) -> int | None:
        """The index of the option that does what `command` does, if any."""
        text = " ".join(command.lower().split())
        for i, members in enumerate(actions.members):
            if text in members:
                return i
        effect = _without(self.effect_of(text), actions.scratch)
        for i, e in enumerate(actions.effects):
            if e and e == effect:
                return i
        return None

    def always_for(self, command: str, actions: ActionSet) -> int | None:
        """The index of look, inventory or wait when `command` does just what it does
        (nothing, or what a turn passing does): they are offered whatever they do."""
        effect = _without(self.effect_of(" ".join(command.lower().split())), actions.scratch)
        for i, always in enumerate(ALWAYS):
            if effect == _without(self.effect_of(always), actions.scratch):
                return i
        return None

    # ------------------------------------------------------------ internals
    def _detect(self, state, ram: np.ndarray) -> ActionSet:
        scope, held, names, room = self._scope(ram)
        noise = self._noise(state, ram, scope)
        by_effect: dict[tuple, list[str]] = {}
        candidates = list(dict.fromkeys(self._candidates(scope, held, names, room)))
        tried = len(candidates)
        raw_effects = self._effects(state, ram, candidates, noise)
        scratch = self._scratch(raw_effects)
        for command, effect in zip(candidates, raw_effects):
            effect = _without(effect, scratch)
            if effect:
                by_effect.setdefault(effect, []).append(command)
        labels = list(ALWAYS)
        members: list[tuple[str, ...]] = [(c,) for c in ALWAYS]
        effects: list[tuple] = [() for _ in ALWAYS]
        # an option's label: its shortest command, the first in template order among
        # equals ("fill can" for the effect "put can in pool" also has)
        named = [(min(commands, key=lambda c: len(c.split())), effect, commands)
                 for effect, commands in by_effect.items()]
        for label, effect, commands in sorted(named, key=lambda t: _order(t[0], self.directions)):
            labels.append(label)
            members.append(tuple(commands))
            effects.append(effect)
        return ActionSet(labels, members, effects, tried, scratch=scratch,
                         scope=tuple(names[o.number] for o in scope if o.number in names),
                         room=room.name if room is not None else "",
                         inventory=tuple(o.name for o in scope if o.number in held))

    def _effects(self, state, ram: np.ndarray, commands: list[str], noise: np.ndarray):
        if self.workers == 1 or len(commands) < 16:
            return [self._effect(state, ram, c, noise) for c in commands]
        if self._pool is None:
            self._pool = ThreadPoolExecutor(self.workers, thread_name_prefix="zmachine")
            self._interpreters = [self._new_interpreter() for _ in range(self.workers)]
        n = self.workers
        results = list(self._pool.map(
            lambda k: [self._effect(state, ram, c, noise, self._interpreters[k])
                       for c in commands[k::n]], range(n)))
        out = [()] * len(commands)
        for k, chunk in enumerate(results):
            out[k::n] = chunk
        return out

    def _new_interpreter(self):
        """Another interpreter on the same story (made here, in the calling thread)."""
        import jericho
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")   # "not fully supported": we need no support
            return jericho.FrotzEnv(str(self.story.path), seed=self.frotz._seed)

    def _effect(self, state, ram: np.ndarray, command: str, noise: np.ndarray,
                frotz=None) -> tuple:
        frotz = frotz or self.frotz
        frotz.set_state(state)
        frotz.step(command)
        after = frotz.get_state()[0]
        changed = np.flatnonzero((after != ram) & ~noise)
        if not changed.size:
            return ()
        return tuple(zip(changed.tolist(), after[changed].tolist()))

    def _scratch(self, effects: list[tuple]) -> frozenset[int]:
        """Global variables the library uses as scratch in this state: ones that
        commands changing nothing else set to two or more different values (e.g.
        the action a `life` routine was asked about: "wake koi", "attack koi")."""
        values: dict[int, set[int]] = {}
        globals_ = self._globals
        for effect in effects:
            if effect and all(globals_[a] for a, _ in effect):
                for a, v in effect:
                    values.setdefault(a, set()).add(v)
        return frozenset(a for a, vs in values.items() if len(vs) > 1)

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True)
            self._pool = None
            self._interpreters = []

    def _noise(self, state, ram: np.ndarray, scope: list[ZObject]) -> np.ndarray:
        """Addresses whose change is not an effect: everything outside the object
        tree, the property tables and the global variables (the parser's buffers
        live there); what changes when a turn passes (timers) or the parser rejects
        a command; and the library's own variables among the globals (noun, second,
        action, the message it printed, ...), learnt from commands the parser takes
        but that change nothing in the tree: once per story from its opening state,
        and again in this state. The result depends only on the state, never on the
        path that led to it."""
        noise = ~self._world_region(ram) | self._opening_noise()
        for probe in ("wait" if self.story.knows("wait") else "look", _JUNK):
            noise |= self._probe(self.frotz, state, ram, probe)
        for probe in self._refusals(scope):
            changed = self._probe(self.frotz, state, ram, probe)
            if not (changed & self._tree).any():
                noise |= changed & self._globals
        return noise

    def _opening_noise(self) -> np.ndarray:
        """The library's globals as seen from the story's first state: every
        refusal, on every object in reach there, on a fresh interpreter."""
        if self._library_globals is None:
            frotz = self._new_interpreter()
            frotz.reset()
            state = frotz.get_state()
            ram = state[0]
            self._world_region(ram)
            learnt = np.zeros(len(ram), bool)
            scope = self._scope_in(frotz, ram)[0]
            for probe in self._refusals(scope, every_object=True):
                changed = self._probe(frotz, state, ram, probe)
                if not (changed & self._tree).any():
                    learnt |= changed & self._globals
            frotz.close()
            self._library_globals = learnt
        return self._library_globals

    def _refusals(self, scope: list[ZObject], every_object: bool = False) -> list[str]:
        """Commands the library parses and refuses: a verb without its object, and
        verbs on objects that cannot take them (objects without rules of their own)."""
        knows = self.story.knows
        out = [v for v in ("take", "dig", "get out", "stand up")
               if all(knows(w) for w in v.split())]
        names = self._names(scope)
        layout = self._layout or None
        plain = [o for o in scope if o.number in names and
                 (layout is None or not o.properties & layout.rules)]
        for obj in plain if every_object else plain[:1]:
            a = names[obj.number]
            out += [c for c, need in ((f"examine {a}", "examine"), (f"tie {a} to {a}", "tie"),
                                      (f"look under {a}", "under")) if knows(need)]
        # a question about nothing the game knows: the parser's topic variables
        # (where the topic starts, how many words) change and nothing else does; the
        # character named twice over moves where the topic starts
        if knows("ask") and knows("about"):
            for obj in [o for o in scope if o.number in names and ANIMATE in o.attributes][:1]:
                a = names[obj.number]
                out += [f"ask {a} about {_JUNK}", f"ask {a} about {_JUNK} {_JUNK}",
                        f"ask {a} {a} about {_JUNK}"]
        if self.prune:
            for verb, attr in (("wake", ANIMATE), ("switch on", SWITCHABLE),
                               ("eat", EDIBLE), ("wear", CLOTHING)):
                targets = [o for o in plain if attr not in o.attributes]
                for target in targets if every_object else targets[:1]:
                    if knows(verb.split()[0]):
                        out.append(f"{verb} {names[target.number]}")
            if every_object:     # the multiple-object lists, where the opening has nothing to move
                out += [c for c in ("drop all", "take all") if knows(c.split()[0]) and knows("all")]
            if every_object and len(plain) > 1 and knows("give") and knows("to"):
                a, b = names[plain[0].number], names[plain[1].number]
                out += [f"give {a} to {b}", f"show {a} to {b}"]
        return out

    @staticmethod
    def _probe(frotz, state, ram: np.ndarray, command: str) -> np.ndarray:
        frotz.set_state(state)
        frotz.step(command)
        return frotz.get_state()[0] != ram

    def _world_region(self, ram: np.ndarray) -> np.ndarray:
        if self._region is None or len(self._region) != len(ram):
            story = self.story
            region = np.zeros(len(ram), bool)
            raw = ram.tobytes()
            count = story.object_count(raw)
            start = story.object_table + 2 * story._defaults
            region[start:start + count * story._entry] = True
            tables = [story.word(start + (n + 1) * story._entry - 2, raw) for n in range(count)]
            if tables:
                low = min(tables)
                high = max(tables)
                # up to the end of the last property table
                end = high + 1 + 2 * raw[high]
                while end < len(raw) and raw[end]:
                    size = raw[end]
                    if story.version <= 3:
                        end += 1 + (size >> 5) + 1
                    elif size & 0x80:
                        end += 2 + ((raw[end + 1] & 63) or 64)
                    else:
                        end += 1 + (2 if size & 0x40 else 1)
                region[low:end + 1] = True
            if story.inform_version.startswith("6"):
                objects = story.objects(raw)
                game_objects = [n for n in range(1, count + 1)
                                if objects[n].name not in _LIBRARY_OBJECTS]
                for start_, end_ in _individual_tables(story, raw, game_objects):
                    region[start_:end_] = True
            self._tree = region.copy()
            g = story.globals_address
            if not self.inform7:
                region[g:g + 480] = True
            self._region = region
            self._globals = np.zeros(len(ram), bool)
            self._globals[g:g + 480] = True

        return self._region

    def _scope(self, ram: np.ndarray):
        return self._scope_in(self.frotz, ram)

    def _scope_in(self, frotz, ram: np.ndarray):
        """The objects in reach, the held ones, each one's shortest distinct name and
        the room (None when the player cannot be found)."""
        if self.inform7:
            return self._text_scope(frotz, ram)
        raw = ram.tobytes()
        self._raw = raw
        objects = self.story.objects(raw)
        if self._layout is None:
            self._layout = inform_layout(self.story, objects, raw) if self.prune else False
        player = self._current_player = self._find_player(objects)
        if player is None:
            return [], set(), {}, None
        room = player
        seen = set()
        while objects[room].parent and objects[room].parent in objects and room not in seen:
            seen.add(room)
            room = objects[room].parent
        held: set[int] = set()
        scope: list[ZObject] = []

        def walk(number: int, inside_player: bool) -> None:
            child = objects[number].child if number in objects else 0
            while child and child in objects:
                obj = objects[child]
                if child != player:
                    if not obj.words:          # named by a parse_name routine only
                        obj = replace(obj, words=self._spoken_words(obj))
                    if obj.words:
                        scope.append(obj)
                        if inside_player:
                            held.add(child)
                    if self._opens_to_view(obj):
                        walk(child, inside_player)
                else:
                    walk(child, True)
                child = obj.sibling

        walk(room, False)
        scope.sort(key=lambda o: o.number)
        return scope, held, self._names(scope), objects[room]

    def _text_scope(self, frotz, ram: np.ndarray):
        """Inform 7 names its objects with routines, so the names come from what the game
        prints: runs of noun words in `look` (in reach) and `inventory` (held), each a
        stand-in object (negative number), named by its last word when no other run
        has it, else by the whole run. The room is the player's parent in the tree."""
        state = frotz.get_state()
        texts = []
        for probe in ("look", "inventory"):
            frotz.set_state(state)
            texts.append(frotz.step(probe)[0])
        frotz.set_state(state)
        runs: dict[tuple[str, ...], bool] = {}           # phrase -> held
        for held_text, text in enumerate(texts):
            run: list[str] = []
            for token in _TOKEN.findall(text.lower()) + [""]:
                if token and self._is_noun(token) and token not in _DIRECTION_WORDS:
                    run.append(token)
                    continue
                if run:
                    phrase = tuple(run[-4:])
                    runs[phrase] = runs.get(phrase, False) or bool(held_text)
                run = []
        scope, held, names = [], set(), {}
        heads = [p[-1] for p in runs]
        for k, (phrase, is_held) in enumerate(runs.items(), start=1):
            obj = ZObject(-k, " ".join(phrase), 0, 0, 0, frozenset(), phrase, frozenset())
            scope.append(obj)
            names[-k] = phrase[-1] if heads.count(phrase[-1]) == 1 else " ".join(phrase)
            if is_held:
                held.add(-k)
        objects = self.story.objects(ram.tobytes())
        player = self._current_player = self._find_player(objects)
        room = objects.get(objects[player].parent) if player is not None else None
        return scope, held, names, room

    @cached_property
    def _object_topics(self) -> list[str]:
        """One word for each object of the game that has a name (its noun: the last word
        of its printed name it answers to): the things one can ask a character about."""
        out = []
        for obj in self.story.initial_objects.values():
            words = [w for w in obj.words if w.isalpha() and w not in _DIRECTION_WORDS]
            spoken = [w for w in reversed(obj.name.lower().split())
                      if self.story.cut(w) in words]
            if words:
                out.append(spoken[0] if spoken else words[0])
        return list(dict.fromkeys(out))

    @cached_property
    def _topic_words(self) -> list[str]:
        """The game's nouns that name no object ("weather", a character's surname): the
        words its conversation rules listen for. The library's own nouns are left out."""
        named = {w for o in self.story.initial_objects.values() for w in o.words}
        return sorted(w for w, flags in self.story.dictionary.values()
                      if flags & INFORM_NOUN and w.isalpha() and w not in named
                      and w not in _LIBRARY_NOUNS and w not in _DIRECTION_WORDS)

    def _spoken_words(self, obj: ZObject) -> tuple[str, ...]:
        """The words of an object's printed name that the dictionary knows, for objects
        whose vocabulary lives in a parse_name routine (a horse with no name property)."""
        cut = self.story.cut
        return tuple(dict.fromkeys(cut(w) for w in _TOKEN.findall(obj.name.lower())
                                   if cut(w) in self._flags and w not in _STOP))

    @cached_property
    def _flags(self) -> dict[str, int]:
        return {word: flags for word, flags in self.story.dictionary.values()}

    def _opens_to_view(self, obj: ZObject) -> bool:
        if not self.prune:
            return True
        a = obj.attributes
        return not (CONTAINER in a and OPEN not in a and TRANSPARENT not in a)

    def _find_player(self, objects: dict[int, ZObject]) -> int | None:
        """The object the player is now. First the self object; then, where the game
        hands the player another body (Inform's ChangePlayer), the animate object that
        most of the globals holding the self object in the first state now hold (the
        library's `player` and `actor`)."""
        self_object = self._self_object(objects)
        if self_object is None or not self.prune:
            return self_object
        raw, g = self._raw, self.story.globals_address
        if self._player_globals is None:
            self._player_globals = [g + 2 * i for i in range(240)
                                    if self.story.word(g + 2 * i, raw) == self_object]
        now = Counter(v for v in (self.story.word(a, raw) for a in self._player_globals)
                      if v in objects and ANIMATE in objects[v].attributes)
        return now.most_common(1)[0][0] if now else self_object

    def _self_object(self, objects: dict[int, ZObject]) -> int | None:
        if self._player in objects:
            return self._player
        number = 0
        if getattr(self.frotz, "is_fully_supported", False):   # Jericho knows this game
            number = int(self.frotz.frotz_lib.get_self_object_num())
        if number not in objects:
            for obj in objects.values():
                if obj.name in ("(self object)", "yourself", "you", "self", "myself"):
                    number = obj.number
                    break
        self._player = number if number in objects else None
        return self._player

    def _names(self, scope: list[ZObject]) -> dict[int, str]:
        """Each object's shortest words that no other object in reach also answers to."""
        names: dict[int, str] = {}
        for obj in scope:
            words = [w for w in obj.words if w.isalpha()]
            if not words:
                continue
            spoken = obj.name.lower().split()
            # prefer the words of the printed name, last (the noun) first
            ordered = [w for w in reversed(spoken) if self.story.cut(w) in words]
            ordered += [w for w in words if w not in (self.story.cut(s)
                                                       for s in ordered)]
            others = [set(o.words) for o in scope if o.number != obj.number]
            choice = None
            for w in ordered:
                key = self.story.cut(w)
                if not any(key in other for other in others):
                    choice = w
                    break
            if choice is None:
                for a in ordered:
                    for b in ordered:
                        ka, kb = self.story.cut(a), self.story.cut(b)
                        if a != b and not any(ka in o and kb in o for o in others):
                            in_order = a in spoken and b in spoken and \
                                spoken.index(b) < spoken.index(a)
                            choice = f"{b} {a}" if in_order else f"{a} {b}"
                            break
                    if choice:
                        break
            names[obj.number] = choice or ordered[0]
        return names

    # ------------------------------------------------------------- rules
    def _cases(self, obj: ZObject | None, prop: int) -> frozenset[int] | None:
        """The actions one rule property of `obj` answers (empty: none, or no such
        property; None: any, as far as its code can be read). An additive property
        holds a routine per class as well as the object's own: their actions together."""
        if obj is None or obj.number <= 0 or prop not in obj.properties:
            return frozenset()
        data = self.story.property(self._raw, obj.number, prop)
        out: set[int] = set()
        for i in range(0, len(data) - 1, 2):
            packed = data[i] << 8 | data[i + 1]
            if packed in (0, 0xFFFF):          # NULL: no rule
                continue
            cases = self._rule_cases.get(packed, False)
            if cases is False:
                cases = self._rule_cases[packed] = action_cases(
                    self.story.data, packed, self.story.version, self._action_variables)
            if cases is None:
                return None
            out |= cases
        return frozenset(out) if len(data) >= 2 else None

    @cached_property
    def _action_variables(self) -> frozenset[int]:
        """The variable Inform's rule routines test the action in (the library's
        sw__var): the one that most of them compare first."""
        layout = self._layout or None
        if layout is None:
            return frozenset()
        votes: Counter = Counter()
        data, version = self.story.data, self.story.version
        for obj in self.story.initial_objects.values():
            for prop in (layout.before, layout.life, layout.react_before):
                raw = self.story.property(data[:self.story.static_base], obj.number, prop)
                for i in range(0, len(raw) - 1, 2):
                    start = routine_start(data, raw[i] << 8 | raw[i + 1], version)
                    try:
                        ins = decode(data, start, version) if start else None
                    except (IndexError, ValueError):
                        ins = None
                    if ins is not None and (ins.kind, ins.number) == ("2OP", 1) and \
                            ins.operands[0][0] == "var" and ins.operands[0][1] >= 16:
                        votes[ins.operands[0][1]] += 1
        return frozenset({votes.most_common(1)[0][0]}) if votes else frozenset()

    def _topics_for(self, obj: ZObject, actions, topics: list[str], objects: list[ZObject],
                    room: ZObject | None) -> list[str]:
        """The topics worth asking `obj` about: those whose words the rules that hear
        the question name in their code (the character's own rules and the routines
        they call, the room's, every react_before in reach), and two other topics for
        whatever those rules say to the rest; none when no rule hears the question.
        All of them where a rule that hears it names no word or cannot be read (its
        words may then live in an array)."""
        layout = self._layout or None
        if layout is None or actions is None:
            return topics
        listeners = [(obj, layout.before), (obj, layout.life), (room, layout.before)] + \
            [(o, layout.react_before) for o in objects]
        words: set[str] = set()
        heard = False
        for listener, prop in listeners:
            cases = self._cases(listener, prop)
            if cases is not None and not cases & actions:
                continue
            heard = True
            named = self._words_named(listener, prop)
            if not named:
                return topics
            words |= named
        if not heard:
            return []       # the library's answer ("There is no reply") changes nothing
        cut = self.story.cut
        keep = [t for t in topics if any(cut(w) in words for w in t.split())]
        # two of the rest: what the rules say to any other topic, and a second word so
        # that the parser's topic variables show up as scratch (two values)
        return keep + [t for t in topics if t not in keep][:2]

    def _words_named(self, obj: ZObject, prop: int) -> frozenset[str] | None:
        """The dictionary words named by the code of one rule property of `obj` and of
        the object's other routines (its own methods, which its rules call through
        the property veneer); None when the rule's code cannot be read."""
        story = self.story
        data = story.property(self._raw, obj.number, prop)
        rule = [data[i] << 8 | data[i + 1] for i in range(0, len(data) - 1, 2)]
        others = [v for _, d in story._properties(self._raw, obj.number) if len(d) % 2 == 0
                  for v in (d[i] << 8 | d[i + 1] for i in range(0, len(d), 2))]
        for start_, end_ in _individual_tables(story, self._raw, [obj.number]):
            a = start_
            while a + 3 <= end_ - 2:
                length = self._raw[a + 2]
                chunk = self._raw[a + 3:a + 3 + length]
                others += [chunk[i] << 8 | chunk[i + 1] for i in range(0, len(chunk) - 1, 2)]
                a += 3 + length
        out: set[int] = set()
        for packed in dict.fromkeys(rule + others):
            if packed in (0, 0xFFFF):
                continue
            words = self._routine_words.get(packed, False)
            if words is False:
                words = self._routine_words[packed] = routine_words(
                    story.data, packed, story.version, story.dictionary)
            if words is None:
                if packed in rule:
                    return None
                continue             # not a routine after all (a string, a number)
            out |= words
        return frozenset(story.dictionary[a][0] for a in out)

    def _reaches(self, objects: list[ZObject], room: ZObject | None):
        """A test (object, actions, generic) -> may rules make that action on that object
        do something the library alone would not? The object's own before and life,
        the room's before and every react_before in reach are read for the actions
        they answer; rules that cannot be read count as answering every action."""
        layout = self._layout or None
        if layout is None:
            return lambda obj, actions, generic: True
        room_cases = self._cases(room, layout.before)
        reacts: set[int] | None = set()
        for o in objects:
            cases = self._cases(o, layout.react_before)
            if cases is None:
                reacts = None
                break
            reacts |= cases
        own = {o.number: _union(self._cases(o, layout.before), self._cases(o, layout.life))
               for o in objects}

        def hits(cases, actions) -> bool:
            return cases is None or bool(cases) and (actions is None or bool(cases & actions))

        def reaches(obj: ZObject, actions, generic: bool, second: bool = False) -> bool:
            cases = own.get(obj.number, frozenset())
            # the second object's before hears the library's fake actions (Receive
            # when something is put in or on it, LetGo, ThrownAt: numbered from 4096)
            if second and cases and any(c >= _FAKE_ACTIONS for c in cases):
                return True
            if hits(cases, actions) or hits(room_cases, actions):
                return True
            if reacts is None:
                # A react_before that cannot be read (a character listening for "yes",
                # a phone): such rules answer a few verbs, seldom one the library never
                # lets do anything: the library's own verbs on every object, generic
                # verbs only where an object has rules of its own.
                return not generic
            return hits(frozenset(reacts), actions)
        return reaches

    def _candidates(self, scope: list[ZObject], held: set[int], names: dict[int, str],
                    room: ZObject | None):
        layout = self._layout or None
        if layout is not None and room is not None:
            yield from (word for prop, word in layout.exits if prop in room.properties)
        else:
            yield from self.directions
        objects = [o for o in scope if o.number in names]
        # a thing inside a held bag is both: it can be taken out ("get notebook from bag")
        near = [o for o in objects if o.number not in held or
                o.number > 0 and o.parent != self._current_player]
        mine = [o for o in objects if o.number in held]
        pools = {"any": objects, "near": near, "held": mine}
        # topics: what is in reach, the game's objects anywhere, the nouns just printed
        topics = list(dict.fromkeys([names[o.number] for o in objects] + self._object_topics
                                    + list(self._heard) + self._topic_words))
        reaches = self._reaches(objects, room)
        keys = layout.with_key if layout is not None else 0
        for t in self.templates:
            if not t.first:
                yield t.text
                continue
            if t.rules_only and layout is None:
                continue
            slot1 = "{h}" if t.first == "held" else "{o}"
            slot2 = "{h}" if t.second == "held" else "{o}"
            actions = self._template_actions[t.text]
            for a in pools[t.first]:
                # unpruned (attribute numbers unknown): every object in every slot;
                # else the library's condition, or rules that answer this action (a
                # verb the library never lets change anything, such as push, light or
                # climb, changes something only under such rules)
                ok1 = layout is None or not t.generic and _fits(a, t.needs) or \
                    not t.strict and reaches(a, actions, t.generic)
                if not t.second:
                    if ok1:
                        yield t.text.replace(slot1, names[a.number], 1)
                    continue
                if not ok1 and not t.generic:
                    continue
                text = t.text.replace(slot1, names[a.number], 1)
                if t.second == "topic":
                    yield from (text.replace("{t}", topic, 1)
                                for topic in self._topics_for(a, actions, topics, objects, room))
                    continue
                key = _key_of(a, keys, self.story, self._raw) \
                    if t.words[0] in ("unlock", "lock") else 0
                for b in pools[t.second]:
                    if b.number == a.number or key and b.number != key:
                        continue
                    if layout is None:
                        ok = True
                    elif t.generic:   # rules that hear it ("pour can on orchids")
                        ok = ok1 or reaches(b, actions, True, second=True)
                    elif t.needs2:    # the library's condition, or rules that hear it
                        ok = _fits(b, t.needs2) or not t.strict2 and (
                            reaches(a, actions, False) or
                            reaches(b, actions, False, second=True))
                    else:
                        ok = True
                    if ok:
                        yield text.replace(slot2, names[b.number], 1)
        # pushing a thing from room to room (the library's PushDir, which only the
        # thing's own rules make work), towards the exits: things whose rules name
        # PushDir, and where rules cannot be read, things that cannot be taken
        if layout is not None and room is not None and self.story.knows("push") and \
                (self.grammar is None or _in_grammar("push {o} {o}", self.story)):
            exits = [word for prop, word in layout.exits if prop in room.properties]
            actions = _grammar_actions("push {o} {o}", self.story)
            for a in near:
                cases = _union(self._cases(a, layout.before), self._cases(a, layout.life))
                named = cases is not None and bool(cases & actions)
                heavy = STATIC in a.attributes and SCENERY not in a.attributes
                if named or heavy and reaches(a, actions, True):
                    yield from (f"push {names[a.number]} {d}" for d in exits)
        in_reach = [names[o.number] for o in objects]
        fills = {"held": [names[o.number] for o in mine], "object": in_reach,
                 "creature": [names[o.number] for o in objects
                              if not self.prune or ANIMATE in o.attributes],
                 # a scope= token reaches past the room (spells in one's memory)
                 "scope": list(dict.fromkeys(in_reach + self._object_topics + list(self._heard))),
                 "topic": list(dict.fromkeys(in_reach + list(self._heard)))}
        for verb in self.own_verbs:
            lines = self.grammar.get(self.story.cut(verb)) if self.grammar else None
            if lines is None:
                yield verb
                yield from (f"{verb} {name}" for name in in_reach)
                continue
            seen = set()
            for line in lines:
                # "cast off X" and "cast X off": one action, the same words in another order
                same = (line.action, tuple(sorted(map(repr, line.slots))))
                if same not in seen:
                    seen.add(same)
                    yield from _commands(verb, line.slots, fills, pairs=self.inform7)


@dataclass(frozen=True)
class InformLayout:
    """Property numbers of an Inform 6 library game, found from its compass."""
    exits: tuple[tuple[int, str], ...]   # (n_to's number, "north"), ... in library order
    before: int                          # an object's (or a room's) rules for actions on it
    life: int                            # a character's rules for actions on it
    react_before: int                    # rules for actions on anything in reach
    with_key: int                        # the property naming a lock's key

    @property
    def rules(self) -> frozenset[int]:
        return frozenset({self.before, self.life})


def inform_layout(story: Story, objects: dict[int, ZObject], raw: bytes) -> InformLayout | None:
    """The library declares before, after, life, n_to ... out_to, door_to, with_key,
    door_dir, invent, plural, add_to_scope, list_together, react_before in that
    order; the compass objects' door_dir holds n_to's number, s_to's, ...
    None when the game does not look like that (then nothing is pruned)."""
    def by_word(word: str) -> ZObject | None:
        return next((o for o in objects.values() if word in o.words and
                     o.parent and not o.child), None)

    north, south = by_word("north"), by_word("south")
    if north is None or south is None:
        return None
    base = None
    for prop, data in story._properties(raw, north.number):
        if len(data) != 2:
            continue
        value = (data[0] << 8) | data[1]
        other = story.property(raw, south.number, prop)
        if 4 <= value < 50 and len(other) == 2 and (other[0] << 8 | other[1]) == value + 1:
            base = value
            break
    if base is None:
        return None
    words = [next((w for w in names if story.knows(w)), names[0]) for names in DIRECTIONS]
    exits = tuple((base + i, words[i]) for i in range(len(DIRECTIONS)))
    return InformLayout(exits, base - 3, base - 1, base + 19, base + 13)


# Inform numbers fake actions (Receive, LetGo, ThrownAt, ...) from 4096 up.
_FAKE_ACTIONS = 4096

# The Inform 6 library's own objects: their individual properties are its scratch.
_LIBRARY_OBJECTS = frozenset({"(Inform Parser)", "(Inform Library)", "(Library Extensions)"})


def _template_slots(text: str) -> tuple[tuple, ...]:
    """A template's words after its verb as grammar slots: {o}/{h} objects, "all" a
    multiple-object token, {t} a topic, any other word a preposition."""
    out = []
    for word in text.split()[1:]:
        out.append(("object",) if word in ("{o}", "{h}") else ("all",) if word == "all"
                   else ("topic",) if word == "{t}" else ("prep", word))
    return tuple(out)


def _slot_fits(mine: tuple, theirs: tuple, cut) -> bool:
    kind = mine[0]
    if kind == "object":
        return theirs[0] == "object"
    if kind == "all":       # the multiple-object tokens (Inform 7 also lists "all" as a word)
        return theirs[0] == "object" and theirs[1] in (2, 3, 4, 5) or \
            theirs[0] == "prep" and "all" in theirs[1]
    if kind == "topic":
        return theirs[0] == "topic"
    return theirs[0] == "prep" and cut(mine[1]) in theirs[1]


def _in_grammar(text: str, story: Story) -> bool:
    """Has the verb of `text` a grammar line of the template's shape, or one that begins
    with it and goes on with a preposition (the parser can infer the rest)?"""
    return bool(_grammar_actions(text, story))


def _grammar_actions(text: str, story: Story) -> frozenset[int]:
    """The actions of the grammar lines of `text`'s verb that take the template's shape
    (or begin with it and go on with a preposition)."""
    slots = _template_slots(text)
    out = set()
    for line in story.grammar.get(story.cut(text.split()[0]), ()):
        shape = line.slots
        if len(shape) < len(slots) or len(shape) > len(slots) and \
                shape[len(slots)][0] != "prep":
            continue
        if all(_slot_fits(a, b, story.cut) for a, b in zip(slots, shape)):
            out.add(line.action)
    return frozenset(out)


def _commands(verb: str, line: tuple, fills: dict[str, list[str]], pairs: bool = False):
    """The commands one grammar line of a game's own verb can make from what is in
    reach: an object slot filled with each object (a held one, a creature where the
    token asks for one), each topic slot with what is in reach and the nouns just
    printed, a preposition by its first word; also the line's beginning up to a
    preposition (the parser infers the rest). A second object costs objects squared:
    it is filled only where its token asks for a held object, or with `pairs` (Inform
    7, where "cook X with oven" has a plain second noun and the prefix never works)."""
    cut = next((i for i, slot in enumerate(line) if slot[0] == "prep" and i), None)
    shapes = [line] + ([line[:cut]] if cut is not None else [])
    for shape in shapes:
        if any(slot[0] == "special" for slot in shape):
            continue
        objects = [slot for slot in shape if slot[0] == "object"]
        if len(objects) > 1 and not pairs and all(s[1] not in (1, 3) for s in objects[1:]):
            continue
        partial = [[verb]]
        for slot in shape:
            if slot[0] == "prep":
                words = [slot[1][0]]
            elif slot[0] == "topic":
                words = fills["topic"]
            elif slot[1] in (1, 3):
                words = fills["held"]
            else:
                words = fills["creature"] if slot[1] == 6 else \
                    fills["scope"] if slot[1] == -5 else fills["object"]
            partial = [p + [w] for p in partial for w in words if w not in p[1:]]
        yield from (" ".join(p) for p in partial)


def _individual_tables(story: Story, raw: bytes, numbers: list[int]):
    """(start, end) of each object's table of individual properties (Inform 6: common
    property 3 holds its address; entries are a 2-byte identifier, a length byte and
    the data, up to a zero identifier). Inform puts these tables after the common
    ones, next to the globals, so a property such as a character's `stage` lives there."""
    dynamic = len(raw)
    for number in numbers:
        data = story.property(raw, number, 3)
        if len(data) != 2:
            continue
        a = start = (data[0] << 8) | data[1]
        if not 64 <= a < dynamic:
            continue
        while a + 3 <= dynamic and (raw[a] or raw[a + 1]):
            a += 3 + raw[a + 2]
        if a + 2 <= dynamic:
            yield start, a + 2


def _key_of(obj: ZObject, with_key: int, story: Story, raw: bytes) -> int:
    """The object number in a lock's with_key property (0: none or not a constant)."""
    if not with_key or with_key not in obj.properties:
        return 0
    data = story.property(raw, obj.number, with_key)
    return (data[0] << 8 | data[1]) if len(data) == 2 else 0


_LIBRARY_WORDS = frozenset(w for group in LIBRARY_VERBS for w in group)
# The library's out-of-world verbs (its groups before "answer" in LIBRARY_VERBS, the
# debugging verbs included).
_META_WORDS = frozenset(w for group in LIBRARY_VERBS[:[g[0] for g in LIBRARY_VERBS
                                                          if g].index("answer")]
                        for w in group) | META_VERBS
_TOKEN = re.compile(r"[a-z0-9][a-z0-9'-]*")
# Words Inform 7 files as nouns that never name an object by themselves.
_STOP = frozenset("a an the and some of in on to with from at into onto it them him her "
                  "all here there nothing you your yourself me myself".split())
# The nouns the Inform 6 library (6.12) puts in every game's dictionary: articles,
# pronouns, number words and its parser's and verbs' own words.
_LIBRARY_NOUNS = frozenset("""a again all amusing an and another both brief but each eight
eighteen eleven every everythin except fifteen five former four fourteen full fullscore g go
her him his i inv inventory it its l leave lie lighted lit long look me my myself nine nineteen
no normal o one oops other push q quit restart restore run self seven seventeen short sit six
sixteen some stand ten that the their them then these thirteen this those three to twelve
twenty two undo unlit verbose walk x y yes z""".split())
_DIRECTION_WORDS = frozenset(w for names in DIRECTIONS for w in names)


def is_inform7(story: Story) -> bool:
    """Inform 7's compiled library leaves its kinds in the object tree (K0_kind, ...)."""
    return any(o.name == "K0_kind" for o in story.initial_objects.values())


def _without(effect: tuple, scratch: frozenset[int]) -> tuple:
    return tuple(pair for pair in effect if pair[0] not in scratch) if scratch else effect


def _union(a: frozenset | None, b: frozenset | None) -> frozenset | None:
    return None if a is None or b is None else a | b


def _library_verb(word: str) -> bool:
    return word in _LIBRARY_WORDS


def _fits(obj: ZObject, needs: tuple) -> bool:
    return all((attr in obj.attributes) == present for attr, present in needs)


def own_verbs(story: Story) -> list[str]:
    """The game's own verbs: one word per verb number, the library's groups left out
    unless the game split a word off into a verb of its own."""
    data = story.verb_numbers
    library_numbers = {}
    for group in LIBRARY_VERBS:
        present = [story.cut(w) for w in group if story.cut(w) in data]
        if present:
            library_numbers[present[0]] = data[present[0]]
            for w in present[1:]:
                library_numbers[w] = data[present[0]]
    # A verb that is out of the story's world (quit, transcript, nouns, score, ...) is
    # never tried under any of its words: trying "transcript" would write a file.
    meta = {story.cut(w) for w in _META_WORDS}
    out_of_world = {data[w] for w in data if w in meta}
    taken: dict[int, str] = {}
    for word in sorted(data, key=lambda w: (len(w), w)):
        if word in OTHER_VERBS or not word.isalpha() or data[word] in out_of_world:
            continue
        if word in library_numbers and data[word] == library_numbers[word]:
            continue       # the library's own verb (or a synonym of it)
        taken.setdefault(data[word], word)
    return sorted(taken.values())


def _order(command: str, directions: list[str]) -> tuple:
    """Directions first in compass order, then alphabetical."""
    if command in directions:
        return (0, directions.index(command), command)
    return (1, 0, command)
