"""An error met reading data, in one line a user can act on, the same for the index build's skip reasons and
every command that reads a dataset; and which errors mean a data file cannot be read (the user's to fix).

A JVM error reaches Python as a Py4J error whose text is the Java stack (40 lines and more): it is told by its
Java message, with its causes' (``[FAILED_READ_FILE.NO_HINT] Encountered error while reading file ... (cause:
IOException: could not decode the dictionary for [a] optional int64 a; IOException: FAILED_TO_UNCOMPRESS(5))``).
"""

from __future__ import annotations

import re

MAX_CHARS = 300
_SQLSTATE = re.compile(r"\s*SQLSTATE: \w+\s*$")
UNREADABLE_FILE = "FAILED_READ_FILE"  # Spark's error condition for a data file that cannot be read


def _first_line(text: object) -> str:
    lines = str(text or "").strip().splitlines()
    return _SQLSTATE.sub("", lines[0])[:MAX_CHARS] if lines else ""


def _named(kind: str, message: object) -> str:
    """``Type: first line``; a Spark error's message alone, as it starts with its condition (``[NAME] ...``)."""
    line = _first_line(message)
    return line if line.startswith("[") else f"{kind}: {line}"


def error_line(exc: BaseException) -> str:
    """An exception in one line: its type and the first line of its message; a JVM error's Java class and
    message, and its causes' (the nearest and the root)."""
    java = getattr(exc, "java_exception", None)
    if java is None:
        return _named(type(exc).__name__, exc)
    try:
        text = _named(java.getClass().getSimpleName(), java.getMessage())
        causes, cause = [], java.getCause()
        while cause is not None and len(causes) < 20:  # the causes that say something, nearest first
            if (line := _first_line(cause.getMessage())) and line not in text:
                causes.append(_named(cause.getClass().getSimpleName(), line))
            cause = cause.getCause()
        if causes:
            text += f" (cause: {'; '.join(dict.fromkeys([causes[0], causes[-1]]))})"
        return text
    except Exception:  # noqa: BLE001 - the JVM is gone (the gateway closed): its text is all there is
        lines = [ln for ln in str(exc).splitlines() if ln.strip() and not ln.startswith(("\tat ", "An error occurred"))]
        return f"{type(exc).__name__}: {_first_line(lines[0].lstrip(': ') if lines else '')}"


def unreadable_file(exc: BaseException) -> bool:
    """Spark failed because a data file cannot be read (corrupt, truncated, not of its format)."""
    condition = getattr(exc, "getCondition", None)
    try:
        if callable(condition) and (condition() or "").startswith(UNREADABLE_FILE):
            return True
    except Exception:  # noqa: BLE001 - an exception without a condition
        pass
    return f"[{UNREADABLE_FILE}" in str(exc).split("\n\tat ", 1)[0]
