"""Monsters' own traits and actions that fit none of the engine's general mechanisms, and swimming:
one module per trait family (SRD 5.1 stat blocks; each module's docstring names its rules and
their simplifications), the way :mod:`..classes` has one module per class.

The engine (:mod:`..engine`, the :mod:`..battle` parts), the spells and the builders call in
through the hook points of :mod:`.dispatch`, which call each family's step in a fixed order (the
order of the options offered, of the rolls made and of the events logged: keep it when adding a
step). Each hook is a cheap early-out when no creature of the battle has one of these mechanics
(``Battle.specials`` is False, or the combatant has no ``resources["ms"]`` entry).
:func:`.dispatch.compile_monster` adds to a freshly built monster combatant what its stat block
needs from here (``resources["ms"]``: the parameters, taken from the SRD stat blocks;
``resources["swim"]``: its swimming speed), each family compiling its own part.

Each family registers the option kinds it answers (``ms_*``) and its spell-screen step into
:mod:`..rules.hooks`; a monster action that picks a creature is a ``("ms", <what>)`` target
decision, whose options and resolution :mod:`.dispatch` looks up in the families' ``TARGETS``.
:mod:`.common` holds the helpers several families share.

Families: :mod:`.swimming`; :mod:`.golems` (Berserk, Aversion of Fire, Acid Absorption, Haste);
:mod:`.corrosion` (Corrosive Form, Corrode Metal, Rust Metal, Antennae); :mod:`.fire_form` (Fire
Form, burning, Water Susceptibility); :mod:`.hags` (Horrific Appearance, Death Glare, true forms,
Draining Kiss); :mod:`.duergar`; :mod:`.guardian_naga`; :mod:`.legendary` (legendary actions and
legendary spells); :mod:`.phantasms`; :mod:`.flying_sword`; :mod:`.shield_guardian`;
:mod:`.harpy`; :mod:`.gibbering_mouther`; :mod:`.gelatinous_cube`; :mod:`.kraken`; :mod:`.roper`;
:mod:`.tarrasque`; :mod:`.rakshasa`; :mod:`.androsphinx`.
"""
