"""Direct challenges: one player asks a named other for a game (clock, colour, rated,
rules); accepted, declined with a reason, cancelled or expired; and blocks, which
stop a player's challenges."""
