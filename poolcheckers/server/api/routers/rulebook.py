"""The rules in plain words for the rules page (``/rules``)."""

from __future__ import annotations

import json
from functools import cache

from fastapi import APIRouter, Response

from poolcheckers.server.api.deps import Lang, json_response
from poolcheckers.server.api.http import ERROR_RESPONSES, ApiRoute
from poolcheckers.server.i18n import translator
from poolcheckers.server.rulebook.model import rulebook as rules_in_words

router = APIRouter(tags=["rules"], route_class=ApiRoute, responses=ERROR_RESPONSES)

#: the same for everyone and every request: computed once (its positions' moves)
_RULEBOOK = {"rules": rules_in_words()}
WORDS = frozenset({"section", "title", "text", "note"})


@cache
def _in_language(locale: str) -> str:
    """The rule book in ``locale``, as JSON text (once per language)."""
    return json.dumps(translator(locale).localize(_RULEBOOK, WORDS), separators=(",", ":"))


@router.get("/api/rulebook", summary="The rules in plain words, with a position each")
async def rulebook(words: Lang) -> Response:
    return json_response(_in_language(words.locale))
