"""Endgame practice against perfect defence from the endgame tables (docs/PRACTICE.md)."""
