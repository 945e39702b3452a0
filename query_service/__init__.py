"""HTTP query service (FastAPI on uvicorn): pattern lookup, inference, validation and tagging."""

from query_service.app import create_app

__all__ = ["create_app"]
