"""Verification of the D&D rules: probes that make each coverage row happen through the
engine's options, and the coverage tables built from them. Above every other layer."""
