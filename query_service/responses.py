"""What the routes answer, for OpenAPI: the error payloads and the ``responses=`` a route declares.

Every error the service raises itself is ``{"detail": "<message>"}``; a 422 is either that or FastAPI's list
of request-validation errors. Routes that return a dict the library builds document it with a model here but
return the dict unchanged (``response_model=None``): re-serializing through a model would change the JSON
(an int in a float field becomes ``30.0``, keys move), and the tests check real answers against the schemas.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from query_service.lanes import RETRY_AFTER_SECONDS
from query_service.models import ErrorOut, UnprocessableOut

_ERRORS: dict[int, tuple[type[BaseModel], str]] = {
    400: (ErrorOut, "A malformed pattern (the message gives the position and the reason)."),
    401: (ErrorOut, "The X-Admin-Token header is missing or wrong."),
    403: (ErrorOut, "Admin endpoints are disabled: the service has no LAKEINDEX_ADMIN_TOKEN."),
    404: (ErrorOut, "The dataset has no clean history in the metrics repository."),
    409: (ErrorOut, "The batch id is already in the dataset's history."),
    413: (ErrorOut, "Over a limit: request body size, values, patterns or cells per request."),
    422: (UnprocessableOut, "The request failed validation, or a value is refused (too long, a bad rule)."),
    503: (ErrorOut, "Unavailable: the index cannot be read, the request's lane is full (retry after Retry-After "
                    "seconds), or the service was started without what the endpoint needs."),
}


def error_responses(*codes: int) -> dict[int | str, dict[str, Any]]:
    """The ``responses=`` entries of the error statuses a route can answer."""
    out: dict[int | str, dict[str, Any]] = {}
    for code in codes:
        model, description = _ERRORS[code]
        out[code] = {"model": model, "description": description}
        if code == 401:
            out[code]["headers"] = {"WWW-Authenticate": {
                "description": "the challenge: send the admin token in the X-Admin-Token header",
                "schema": {"type": "string"}}}
        if code == 503:
            out[code]["headers"] = {"Retry-After": {
                "description": f"seconds to wait before retrying (sent when a lane is full: {RETRY_AFTER_SECONDS})",
                "schema": {"type": "integer"}}}
    return out


def json_error_responses(*codes: int) -> dict[int | str, dict[str, Any]]:
    """``error_responses`` for a route whose 200 is not JSON (the HTML report): FastAPI would file a model's
    schema under the route's own media type, so the JSON content is given explicitly, by reference (the
    models are in the schema through the other routes)."""
    out = error_responses(*codes)
    for entry in out.values():
        model = entry.pop("model")
        entry["content"] = {"application/json": {"schema": {"$ref": f"#/components/schemas/{model.__name__}"}}}
    return out


def documented(model: type[BaseModel], description: str, *errors: int) -> dict[int | str, dict[str, Any]]:
    """``responses=`` of a route returning a dict that ``model`` describes (200), and of its errors."""
    return {200: {"model": model, "description": description}, **error_responses(*errors)}
