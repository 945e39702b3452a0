"""Routers of the query service."""
