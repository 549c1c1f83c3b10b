"""Engine work for the web app: the engine's replies in engine games and the
analyses of the analysis board, each in its own thread pool."""
