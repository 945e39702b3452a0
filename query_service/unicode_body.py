"""JSON bodies must hold Unicode text: a string with a lone UTF-16 surrogate is refused with 422 naming the field.

JSON may escape a surrogate that is not half of a pair (``"\\ud800"``); Python's parser returns it as a
string that no UTF-8 encoder takes, so it would fail deep inside a route (an index lookup, a response) as a
500. Query strings and paths cannot carry one: Starlette decodes them with replacement characters.
"""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable
from typing import Any

from fastapi import HTTPException, Request, Response
from fastapi.routing import APIRoute

# a \uD800-\uDFFF escape: only bodies holding one need the walk (a valid pair is joined into one character)
SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def printable(text: str) -> str:
    """``text`` with its surrogates written as ``\\udXXX`` escapes, so it can be encoded in a response."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def surrogate_issue(value: Any, loc: tuple[str | int, ...] = ("body",)) -> dict | None:
    """FastAPI's validation issue for the first string (value or object key) holding a lone surrogate, or None."""
    if isinstance(value, str):
        found = LONE_SURROGATE.search(value)
        if found is None:
            return None
        return {"type": "string_unicode", "loc": list(loc),
                "msg": f"Input should be Unicode text: {printable(found.group())} at character {found.start()} "
                       "is a lone UTF-16 surrogate (escape a character beyond U+FFFF as a surrogate pair, or "
                       "send it as UTF-8)"}
    if isinstance(value, dict):
        for key, item in value.items():
            issue = surrogate_issue(key, (*loc, printable(key))) or surrogate_issue(item, (*loc, printable(key)))
            if issue:
                return issue
    elif isinstance(value, list):
        for i, item in enumerate(value):
            if issue := surrogate_issue(item, (*loc, i)):
                return issue
    return None


class TextRequest(Request):
    """A request whose JSON body is refused (422) when a string in it holds a lone surrogate."""

    async def json(self) -> Any:
        if not hasattr(self, "_json"):
            body = await self.body()
            parsed = json.loads(body)
            if SURROGATE_ESCAPE.search(body) and (issue := surrogate_issue(parsed)):
                raise HTTPException(status_code=422, detail=[issue])
            self._json = parsed
        return self._json


class TextRoute(APIRoute):
    """A route (FastAPI's documented ``route_class`` hook) whose handler reads its JSON body as a ``TextRequest``."""

    def get_route_handler(self) -> Callable[[Request], Awaitable[Response]]:
        handler = super().get_route_handler()

        async def text_only(request: Request) -> Response:
            return await handler(TextRequest(request.scope, request.receive))

        return text_only
