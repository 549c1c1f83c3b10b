"""Tournaments: round robins of one- or two-game matches, Swiss and arenas; their
pairing systems, standings, model, repository, service and exports."""
