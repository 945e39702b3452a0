"""API docs that work offline: /docs (Swagger UI) and /redoc load their JS and CSS from this server.

FastAPI's default pages load them from a CDN, so on an air-gapped machine they stay blank. The assets come
from the ``fastapi-offline`` package (Swagger UI 5, which renders the OpenAPI 3.1 that FastAPI publishes, and
ReDoc 2); only its files are used, served under ``/docs-assets``.
"""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles

ASSETS_URL = "/docs-assets"
ASSETS = ("swagger-ui-bundle.js", "swagger-ui.css", "redoc.standalone.js", "favicon.png")


def assets_dir() -> Path:
    """The directory of the bundled docs assets; raises if the installed package lacks one of them."""
    import fastapi_offline

    directory = Path(fastapi_offline.__file__).parent / "static"
    missing = [name for name in ASSETS if not (directory / name).is_file()]
    if missing:
        raise RuntimeError(f"fastapi-offline at {directory} lacks {', '.join(missing)}: reinstall lakeindex")
    return directory


def add_docs(app: FastAPI) -> None:
    """Serve the assets and the /docs and /redoc pages (build the app with ``docs_url=None, redoc_url=None``)."""
    app.mount(ASSETS_URL, StaticFiles(directory=assets_dir()), name="docs-assets")

    def prefix(request: Request) -> str:
        # behind a proxy that mounts the service under a path, URLs must carry it
        return request.scope.get("root_path", "").rstrip("/")

    @app.get("/docs", include_in_schema=False)
    async def swagger_ui(request: Request) -> HTMLResponse:
        """Swagger UI (no validator badge: it would call validator.swagger.io)."""
        root = prefix(request)
        return get_swagger_ui_html(openapi_url=f"{root}{app.openapi_url}", title=f"{app.title} - Swagger UI",
                                   swagger_js_url=f"{root}{ASSETS_URL}/swagger-ui-bundle.js",
                                   swagger_css_url=f"{root}{ASSETS_URL}/swagger-ui.css",
                                   swagger_favicon_url=f"{root}{ASSETS_URL}/favicon.png",
                                   swagger_ui_parameters={"validatorUrl": None})

    @app.get("/redoc", include_in_schema=False)
    async def redoc(request: Request) -> HTMLResponse:
        """ReDoc, without Google Fonts (the system fonts)."""
        root = prefix(request)
        return get_redoc_html(openapi_url=f"{root}{app.openapi_url}", title=f"{app.title} - ReDoc",
                              redoc_js_url=f"{root}{ASSETS_URL}/redoc.standalone.js",
                              redoc_favicon_url=f"{root}{ASSETS_URL}/favicon.png", with_google_fonts=False)
