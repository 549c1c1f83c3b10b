"""Lessons for beginners through the rule book (docs/LESSONS.md)."""
