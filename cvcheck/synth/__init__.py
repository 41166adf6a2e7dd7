"""Seeded generators of puzzles, reference solutions and model-like answers with labels.

Everything here is deterministic in its seed, so a labelled corpus can be regenerated
exactly from a command line.
"""
