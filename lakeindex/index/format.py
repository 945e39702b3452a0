"""On-disk format of a pattern index: keys, packed values and RocksDB options.

Key: the canonical pattern string, UTF-8. Value: two unsigned varints, the sum over covering
columns of Imp_D(p) in fixed point (``IMPURITY_SCALE`` units, each column's impurity rounded
*up* so any impurity stays visible), and Cov_T(p). Integers make merging exact and associative:
the index of A ∪ B is the key-wise sum of the indexes of A and B.

Storage is tuned for size (written once, read many times): 64 KB blocks with restart points every
64 keys (sorted patterns share long prefixes), zstd level 9, and no bloom filter. On the
20,188-column benchmark lake these settings cut the index from 3.09 MB (16 KB blocks, default zstd,
10-bit bloom) to 1.49 MB (level 19 saves 6% more but writes 15x slower). Readers keep a block
cache instead, so an index that fits in it answers absent-key lookups from memory.
"""

from __future__ import annotations

from rocksdict import BlockBasedOptions, Cache, DBCompressionType, Options

# 2: the hierarchy gained <hex> (keys of hex words). A format-1 index lacks those keys, so readers
# refuse it and ask for a rebuild rather than silently never proposing a <hex> pattern.
# 3: values wider than tau add evidence through their segment windows, and shapes beyond the template
# budget are enumerated coarser (lakeindex.patterns.enumerate). A format-2 index lacks the segment
# evidence that vertical cuts of wide columns now rely on.
# 4: windows hold 2-3 words (format 3 had up to tau tokens: 85% of its keys were 4-word windows) on a
# coarse class ladder, and hex-compatible words get <hex> where a window position holds hex words;
# whole values count exactly above the evidence floor (constants merged across shapes). A format-3
# index has other window keys and would mislead queries of this version.
FORMAT_VERSION = 4
IMPURITY_SCALE = 1_000_000


def impurity_units(total: int, matching: int) -> int:
    """Imp_D(p) = (total - matching) / total in fixed point, rounded up (exact integer math)."""
    return -(-(total - matching) * IMPURITY_SCALE // total)


def _varint(n: int, out: bytearray) -> None:
    while n >= 0x80:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)


def pack(imp_units: int, coverage: int) -> bytes:
    """Pack (sum of impurity units, coverage) into the value bytes."""
    if imp_units < 0 or coverage < 0:
        raise ValueError("negative index statistics")
    out = bytearray()
    _varint(imp_units, out)
    _varint(coverage, out)
    return bytes(out)


def unpack(data: bytes) -> tuple[int, int]:
    """Inverse of :func:`pack`."""
    vals = []
    n = shift = 0
    for b in data:
        n |= (b & 0x7F) << shift
        if b & 0x80:
            shift += 7
        else:
            vals.append(n)
            n = shift = 0
    if len(vals) != 2:
        raise ValueError(f"corrupt index value {data!r}")
    return vals[0], vals[1]


def fpr(imp_units: int, coverage: int) -> float:
    """FPR_T(p) (Definition 7): mean impurity over the covering columns."""
    return imp_units / IMPURITY_SCALE / coverage if coverage else 1.0


ZSTD_LEVEL = 9
BLOCK_CACHE_BYTES = 256 * 1024 * 1024


def rocksdb_options(block_cache_bytes: int = 0) -> Options:
    """Options for index databases (see module docstring); readers pass a block cache size."""
    opts = Options(raw_mode=True)
    opts.create_if_missing(True)
    opts.set_compression_type(DBCompressionType.zstd())
    opts.set_bottommost_compression_type(DBCompressionType.zstd())
    opts.set_compression_options(-14, ZSTD_LEVEL, 0, 0)
    opts.set_bottommost_compression_options(-14, ZSTD_LEVEL, 0, 0, True)
    table = BlockBasedOptions()
    table.set_block_size(64 * 1024)
    table.set_block_restart_interval(64)
    if block_cache_bytes:
        table.set_block_cache(Cache(block_cache_bytes))
    opts.set_block_based_table_factory(table)
    opts.set_max_open_files(-1)
    return opts
