"""The lobby: seeks and their pairing (model), their repository, and the lobby's
sockets and cross-process channel (service)."""
