"""Condition rules read in several places (SRD Appendix A: Conditions)."""

# a speed of 0: grappled, restrained, and the conditions that leave a creature unable to move
ZERO_SPEED = ("grappled", "restrained", "paralyzed", "petrified", "stunned", "unconscious")
# automatic failure on Strength and Dexterity saving throws
AUTO_FAIL = ("paralyzed", "petrified", "stunned", "unconscious")
# a hit on the creature from an attacker within 5 ft is a critical hit (melee or ranged alike)
AUTO_CRIT = ("paralyzed", "unconscious")
