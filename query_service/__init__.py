"""HTTP query service (FastAPI on uvicorn): pattern lookup, inference, validation and tagging.

``create_app`` is imported on first use, so that ``lakeindex`` (which registers ``serve`` from here)
does not load the web stack and the whole library for commands that never serve.
"""

from typing import Any

__all__ = ["create_app"]


def __getattr__(name: str) -> Any:
    if name == "create_app":
        from query_service.app import create_app

        return create_app
    raise AttributeError(f"module 'query_service' has no attribute {name!r}")
