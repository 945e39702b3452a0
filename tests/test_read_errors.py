"""One line for an error met reading data: a JVM error by its message and causes, never its Java stack."""

from __future__ import annotations

from lakeindex.lake.read_errors import error_line, unreadable_file


class _Java:
    """The few methods of a Py4J JavaObject wrapping a Throwable that error_line calls."""

    def __init__(self, name: str, message: str | None, cause: _Java | None = None) -> None:
        self.name, self.message, self.cause = name, message, cause

    def getClass(self) -> _Java:  # noqa: N802 - Java's names
        return self

    def getSimpleName(self) -> str:  # noqa: N802
        return self.name

    def getMessage(self) -> str | None:  # noqa: N802
        return self.message

    def getCause(self) -> _Java | None:  # noqa: N802
        return self.cause


class _Py4JError(Exception):
    def __init__(self, java: _Java) -> None:
        super().__init__("An error occurred while calling o58.collectToPython.\n: org.apache.spark.SparkException: "
                         + (java.message or "") + "\n\tat org.apache.spark.Foo.bar(Foo.scala:1)\n" * 40)
        self.java_exception = java


def test_a_jvm_error_is_its_message_and_its_nearest_and_root_causes():
    # the chain Spark 4.3 raised scanning a Parquet file with corrupt data pages
    java = _Java("SparkException", "[FAILED_READ_FILE.NO_HINT] Encountered error while reading file "
                                   "file:///d/pages.parquet.  SQLSTATE: KD001",
                 _Java("IOException", "could not decode the dictionary for [a] optional int64 a",
                       _Java("IOException", "FAILED_TO_UNCOMPRESS(5)")))
    exc = _Py4JError(java)
    assert error_line(exc) == ("[FAILED_READ_FILE.NO_HINT] Encountered error while reading file "
                               "file:///d/pages.parquet. (cause: IOException: could not decode the dictionary for "
                               "[a] optional int64 a; IOException: FAILED_TO_UNCOMPRESS(5))")
    assert unreadable_file(exc)


def test_causes_without_a_message_are_left_out():
    footer = _Java("SparkException", "[FAILED_READ_FILE.CANNOT_READ_FILE_FOOTER] Encountered error while reading "
                                     "file file:/d/bad.parquet. Could not read footer.\nIf not, please convert it.",
                   _Java("NullPointerException", None))
    assert error_line(_Py4JError(footer)) == ("[FAILED_READ_FILE.CANNOT_READ_FILE_FOOTER] Encountered error while "
                                              "reading file file:/d/bad.parquet. Could not read footer.")


def test_python_errors_keep_their_type_and_first_line():
    assert error_line(ValueError("bad value\nmore")) == "ValueError: bad value"
    assert not unreadable_file(RuntimeError("[UNRESOLVED_COLUMN] x"))
