"""Games: the game model, seats, the repository (compare-and-set, cache), the
service that applies an action, the one creator of games, the wire view, PDN."""
