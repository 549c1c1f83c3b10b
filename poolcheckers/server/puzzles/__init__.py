"""Puzzles on the site: the trainer's attempts rated by Glicko-2 (docs/PUZZLES.md)."""
