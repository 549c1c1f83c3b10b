"""The rules page for players (``/rules``): docs/RULES.md in plain words."""
