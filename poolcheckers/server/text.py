"""Text that can always be sent and stored as UTF-8: a lone surrogate (which JSON can
carry but UTF-8 cannot) is replaced.  Used by the game model for rows stored before
such text was refused, by the error shape for messages that quote the input, and by
the API's schemas; it belongs to no domain."""

from __future__ import annotations

import re

#: a lone UTF-16 surrogate, as Python keeps one read from JSON
SURROGATE = re.compile("[\ud800-\udfff]")


def clean_text(text: str) -> str:
    """``text`` with any lone surrogate replaced by U+FFFD.

    >>> clean_text("a\\ud800b")
    'a\\ufffdb'
    """
    return SURROGATE.sub("\ufffd", text)
