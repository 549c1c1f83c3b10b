"""The rules in plain words for the rules page (``/rules``)."""

from __future__ import annotations

from fastapi import APIRouter, Response

from poolcheckers.server.api.deps import json_response
from poolcheckers.server.api.http import ERROR_RESPONSES, ApiRoute
from poolcheckers.server.rulebook.model import rulebook as rules_in_words

router = APIRouter(tags=["rules"], route_class=ApiRoute, responses=ERROR_RESPONSES)

#: the same for everyone and every request: computed once
_RULEBOOK = {"rules": rules_in_words()}


@router.get("/api/rulebook", summary="The rules in plain words, with a position each")
async def rulebook() -> Response:
    return json_response(_RULEBOOK)
