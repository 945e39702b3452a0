"""Commit Iceberg delete files (merge-on-read) to a table pyiceberg wrote, for tests.

pyiceberg 0.12 reads position deletes but writes none (its deletes rewrite the data files), and no Spark
Iceberg connector runs on pyspark 4.3. So the delete file is written here with pyarrow as the Iceberg spec
lays it out (a position delete file: ``file_path`` and ``pos`` columns, field ids 2147483546 and
2147483545; an equality delete file: the equality columns under their field ids) and committed with
pyiceberg's own snapshot producer and manifest writer, as a delete manifest (content ``deletes``) added to
the table's manifests.

Checked once against Iceberg's Java library (iceberg-core 1.11.0 from the ``iceberg-spark-runtime-4.1_2.13``
jar, ``IcebergGenerics.read`` on the table's metadata file): it plans the position delete file for its data
file and reads the same live rows as pyiceberg. The equality delete commit is not readable by Java 1.11:
pyiceberg 0.12's manifest schema types ``equality_ids`` as a list of longs where the spec says ints; it
serves only to show that such a table is skipped with its reason.
"""

from __future__ import annotations

import os
import uuid

import pyarrow as pa
import pyarrow.parquet as pq

FILE_PATH_ID, POS_ID = 2147483546, 2147483545


def _field(name: str, typ: pa.DataType, field_id: int) -> pa.Field:
    return pa.field(name, typ, nullable=False, metadata={b"PARQUET:field_id": str(field_id).encode()})


def add_position_deletes(table, data_file: str, positions: list[int]):  # noqa: ANN001, ANN201
    """Commit one position delete file removing the rows at ``positions`` of the data file ``data_file`` (its
    path as the table's manifests give it); the table after the commit."""
    schema = pa.schema([_field("file_path", pa.string(), FILE_PATH_ID), _field("pos", pa.int64(), POS_ID)])
    rows = pa.table({"file_path": [data_file] * len(positions), "pos": sorted(positions)}, schema=schema)
    return _commit(table, rows, "POSITION_DELETES", equality_ids=None)


def add_equality_deletes(table, column: str, values: list):  # noqa: ANN001, ANN201
    """Commit one equality delete file removing the rows whose ``column`` is one of ``values``."""
    field = table.schema().find_field(column)
    arrow = pa.table({column: values})
    schema = pa.schema([_field(column, arrow.schema.field(column).type, field.field_id)])
    return _commit(table, arrow.cast(schema), "EQUALITY_DELETES", equality_ids=[field.field_id])


def _commit(table, rows: pa.Table, content: str, equality_ids: list[int] | None):  # noqa: ANN001, ANN202
    from pyiceberg.manifest import (
        DataFile,
        DataFileContent,
        FileFormat,
        ManifestContent,
        ManifestEntry,
        ManifestEntryStatus,
        ManifestWriterV2,
    )
    from pyiceberg.table.snapshots import Operation
    from pyiceberg.table.update.snapshot import _FastAppendFiles
    from pyiceberg.typedef import Record

    location = table.location().removeprefix("file://").removeprefix("file:")
    path = f"{location}/data/delete-{uuid.uuid4()}.parquet"
    pq.write_table(rows, path)
    delete_file = DataFile.from_args(
        content=DataFileContent[content], file_path=f"file://{path}", file_format=FileFormat.PARQUET,
        partition=Record(), record_count=rows.num_rows, file_size_in_bytes=os.path.getsize(path),
        equality_ids=equality_ids)
    delete_file.spec_id = table.spec().spec_id

    class DeleteManifestWriter(ManifestWriterV2):
        def content(self) -> ManifestContent:
            return ManifestContent.DELETES

        @property
        def _meta(self) -> dict[str, str]:
            return {**super()._meta, "content": "deletes"}

    class RowDelta(_FastAppendFiles):
        def _process_manifests(self, manifests):  # noqa: ANN001, ANN202
            with DeleteManifestWriter(self._transaction.table_metadata.spec(), self.schema(),
                                      self.new_manifest_output(), self._snapshot_id, self._compression) as writer:
                writer.add(ManifestEntry.from_args(status=ManifestEntryStatus.ADDED, snapshot_id=self._snapshot_id,
                                                   sequence_number=None, file_sequence_number=None,
                                                   data_file=delete_file))
            return [*manifests, writer.to_manifest_file()]

    with table.transaction() as tx:
        RowDelta(operation=Operation.DELETE, transaction=tx, io=table.io).commit()
    return table.refresh()
