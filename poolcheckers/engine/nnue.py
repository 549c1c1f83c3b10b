"""The network evaluation's weights file, read without numpy (the engine's side).

The file (written by ``poolcheckers nnue train``, :mod:`poolcheckers.tooling.nnue`)
is little-endian: a 24-byte header (``PCNN``, format version, inputs, accumulator
size ``hidden``, dense layer size ``l2``, FNV-1a checksum of the payload, u32 each),
then the integer weights (``native/nnue.c`` lists them).  The native core checks
everything again before it evaluates with a network; here the header is read so
that a bad file is named with what is wrong with it before the engine sees it.

>>> import tempfile, os
>>> with tempfile.TemporaryDirectory() as folder:
...     path = os.path.join(folder, "bad.bin")
...     _ = open(path, "wb").write(b"PCNX" + bytes(20))
...     read_network(path)
Traceback (most recent call last):
...
poolcheckers.engine.nnue.NetworkError: ...bad.bin: not a network weights file (no PCNN magic)
"""

from __future__ import annotations

import os
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import Final

#: The network shipped in the package (``Engine(evaluation="nnue")``).
DEFAULT_NETWORK: Final = Path(__file__).resolve().parent.parent / "data" / "nnue.bin"

MAGIC: Final = b"PCNN"
VERSION: Final = 1
INPUTS: Final = 128
HEADER: Final = struct.Struct("<4sIIIII")

#: The evaluations an engine can use: the pattern evaluation and the network.
EVALUATIONS: Final = ("pattern", "nnue")

#: What an engine evaluates with unless told otherwise: the shipped network, which
#: beat the pattern evaluation by SPRT at a fixed node count and at 0.1 s a move
#: (docs/ENGINE.md, NNUE).  The levels were measured with it too
#: (:mod:`poolcheckers.engine.levels`).
DEFAULT_EVALUATION: Final = "nnue"


class NetworkError(ValueError):
    """A weights file that cannot be used: the message names the file and the problem."""


def file_size(hidden: int, l2: int) -> int:
    """Bytes of a weights file of this shape (``native/nnue.c``'s layout).

    >>> file_size(64, 16)
    19180
    """
    return (
        HEADER.size
        + 2 * hidden
        + 2 * INPUTS * hidden
        + 4 * INPUTS
        + 4 * l2
        + 2 * hidden * l2
        + 4
        + l2
    )


def fnv1a(data: bytes) -> int:
    """The 32-bit FNV-1a hash of ``data`` (the file's checksum).

    >>> hex(fnv1a(b"a"))
    '0xe40c292c'
    """
    h = 2166136261
    for byte in data:
        h = ((h ^ byte) * 16777619) & 0xFFFFFFFF
    return h


@dataclass(frozen=True)
class Network:
    """A weights file's bytes and the shape its header gives."""

    path: str
    data: bytes
    hidden: int
    l2: int

    def describe(self) -> str:
        """``(128 -> 64) x 2 -> 16 -> 1, 19017 bytes``."""
        return f"(128 -> {self.hidden}) x 2 -> {self.l2} -> 1, {len(self.data)} bytes"


def check_header(data: bytes) -> tuple[int, int]:
    """``(hidden, l2)`` of a weights file's bytes; ValueError saying what is wrong."""
    if len(data) < HEADER.size:
        raise ValueError("too short for the header of a weights file")
    magic, version, inputs, hidden, l2, checksum = HEADER.unpack_from(data)
    if magic != MAGIC:
        raise ValueError("not a network weights file (no PCNN magic)")
    if version != VERSION:
        raise ValueError(f"weights file of format version {version}, this engine reads {VERSION}")
    if inputs != INPUTS:
        raise ValueError(f"weights file with {inputs} inputs, this engine has {INPUTS}")
    if not (8 <= hidden <= 256 and hidden % 8 == 0) or not 1 <= l2 <= 32:
        raise ValueError(f"weights file of an unsupported shape (hidden {hidden}, l2 {l2})")
    if len(data) != file_size(hidden, l2):
        raise ValueError(
            f"weights file of {len(data)} bytes, {file_size(hidden, l2)} for its shape "
            f"(hidden {hidden}, l2 {l2})"
        )
    if fnv1a(data[HEADER.size :]) != checksum:
        raise ValueError("weights file damaged (checksum mismatch)")
    return int(hidden), int(l2)


def read_network(path: str | os.PathLike[str]) -> Network:
    """The weights file at ``path``; :class:`NetworkError` naming it and the problem."""
    name = os.fspath(path)
    try:
        with open(name, "rb") as handle:
            data = handle.read()
    except OSError as exc:
        raise NetworkError(
            f"{name}: cannot read the network weights ({exc.strerror or exc})"
        ) from exc
    try:
        hidden, l2 = check_header(data)
    except ValueError as exc:
        raise NetworkError(f"{name}: {exc}") from None
    return Network(name, data, hidden, l2)


def network_path(evaluation: str | os.PathLike[str]) -> Path | None:
    """The weights file an ``evaluation`` names: None for ``"pattern"``, the shipped
    network for ``"nnue"``, else the path itself.

    >>> network_path("pattern") is None, network_path("nnue") == DEFAULT_NETWORK
    (True, True)
    """
    if evaluation == "pattern":
        return None
    if evaluation == "nnue":
        return DEFAULT_NETWORK
    return Path(evaluation)
