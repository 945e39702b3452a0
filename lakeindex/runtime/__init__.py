"""Helpers about the running process and install, not about the algorithms: which build runs, garbage collection."""
