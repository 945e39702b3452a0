"""The character encoding of text data (CSV, TSV, JSON lines, values files): one rule for every command.

Text is read as UTF-8 unless ``--encoding`` names another codec; input that does not decode is bad input
(exit 2) with one message naming the file, the byte offset and the option, never silently replaced
characters. Both readers get the same codec: Python decodes for the local path, Spark's ``encoding`` option
takes its name for the codec (:func:`spark_charset`; Spark 4 reads only Unicode and Latin-1).
"""

from __future__ import annotations

import codecs

DEFAULT_ENCODING = "utf-8"
CHECK_CHUNK_BYTES = 1 << 20
_UTF_BOM = b"\xef\xbb\xbf"
SPARK_CHARSETS = {"utf-8": "utf-8", "iso8859-1": "iso-8859-1", "ascii": "us-ascii", "utf-16": "utf-16",
                  "utf-16-le": "utf-16le", "utf-16-be": "utf-16be", "utf-32": "utf-32"}


class EncodingError(ValueError):
    """Text that does not decode with the encoding it is read with (bad input: exit 2)."""


def codec_name(encoding: str | None) -> str:
    """Python's canonical name of ``encoding`` (UTF-8 when None), or an error naming the option."""
    try:
        return codecs.lookup(encoding or DEFAULT_ENCODING).name
    except LookupError:
        raise EncodingError(f"--encoding {encoding!r}: unknown encoding (e.g. utf-8, latin-1, cp1252, "
                            "utf-16)") from None


def spark_charset(encoding: str | None) -> str | None:
    """The name Spark's ``encoding`` option takes for a Python codec, or None: Spark 4 reads only these
    charsets (``latin-1`` is its ``iso-8859-1``; ``cp1252`` and others are Python's only)."""
    name = codec_name(encoding)
    return SPARK_CHARSETS.get(name)


def undecodable(path: str, offset: int, bad: bytes, encoding: str | None) -> EncodingError:
    """The one message for text that does not decode: the file, the byte offset, and what to do."""
    name = codec_name(encoding)
    shown = bad[:4].hex(" ")
    hint = ("pass --encoding with the file's encoding (e.g. --encoding latin-1 or cp1252) or re-export it as UTF-8"
            if encoding is None else f"--encoding {encoding} is not the file's encoding: pass the right one")
    return EncodingError(f"{path}: byte {offset} (0x{shown}) is not valid {name} text; {hint}")


def decode_text(data: bytes, path: str, encoding: str | None = None) -> str:
    """``data`` decoded (a UTF-8 byte order mark dropped), or the shared ``EncodingError``."""
    name = codec_name(encoding)
    start = len(_UTF_BOM) if name == "utf-8" and data.startswith(_UTF_BOM) else 0
    try:
        return data[start:].decode(name)
    except UnicodeDecodeError as exc:
        raise undecodable(path, start + exc.start, exc.object[exc.start:exc.end], encoding) from None


def check_file(path: str, encoding: str | None = None) -> None:
    """Raise the shared ``EncodingError`` unless the whole file decodes; reads it in 1 MB chunks (bounded
    memory, any size)."""
    decoder = codecs.getincrementaldecoder(codec_name(encoding))("strict")
    consumed = 0
    with open(path, "rb") as fh:
        while True:
            chunk = fh.read(CHECK_CHUNK_BYTES)
            pending = len(decoder.getstate()[0])
            try:
                decoder.decode(chunk, final=not chunk)
            except UnicodeDecodeError as exc:
                raise undecodable(path, consumed - pending + exc.start, exc.object[exc.start:exc.end],
                                  encoding) from None
            if not chunk:
                return
            consumed += len(chunk)
