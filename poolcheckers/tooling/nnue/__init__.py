"""The network evaluation's training pipeline (``poolcheckers nnue``): tooling only.

* :mod:`~poolcheckers.tooling.nnue.data`: quiet training positions from self-play,
  from match games (PDN) and from the endgame tables, each with a search score and
  a result;
* :mod:`~poolcheckers.tooling.nnue.model`: the network in numpy (float training
  forward and backward passes, the integer forward pass the engine computes, the
  quantisation) and the weights file (:mod:`poolcheckers.engine.nnue` reads it
  without numpy);
* :mod:`~poolcheckers.tooling.nnue.train`: Adam over minibatches on a sigmoid loss
  of the blended label, reproducible bit for bit from a seed.

The engine never imports this package; the web app and the rules library neither.
"""
