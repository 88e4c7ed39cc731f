"""The parts :class:`~dungeonbench_gym.dnd.engine.Battle` is assembled from, one module per topic.

Each module holds one mixin class (methods of the battle, which read and write its own state) and
the option-kind handlers of its topic, which it registers in ``rules/hooks.py``'s tables. They form
the engine layer with ``engine.py``, which composes them; nothing below the engine imports them.
"""
