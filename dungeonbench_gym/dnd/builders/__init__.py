"""Builders: combatants made from content (PC builds from the class tables, monsters from their
SRD stat blocks). They sit above the mechanics, whose rules a build fills in, and below the engine."""
