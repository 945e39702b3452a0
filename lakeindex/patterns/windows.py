"""Segment windows: evidence in the index for the parts of values wider than tau (index format 4).

The paper skips values of more than tau tokens and relies on vertical cuts online. On a lake of
thousands rather than millions of columns, the segments those cuts ask for (``<hex>{8}-<hex>{4}`` of
a UUID, ``<digit>{2}:<digit>{2}.<digit>{3}`` of an ISO timestamp) then occur in no indexed column,
and the column gets no rule. So the build cuts a column of structured wide values the way FMDV-V
cuts a query: a *window* is a run of whole parts that starts and ends on a word and holds 2 to
``window_words`` (3) words; "words i..j" of all the column's values is a pseudo-column D[i..j]
(values without such words do not match in it). Windows start at one of the first ``edge`` words
(key ``("s", i, j)``) or end at one of the last ``edge`` words (key ``("e", i, j)``, counted from the
end, so values of different lengths align at their tails: file extensions, zones).

Why 2-3 words: one word alone is what narrow columns already show, and single-word windows would
make ``<alphanum>+`` look like a pure domain everywhere (a window word is alphanumeric by definition).
Vertical cuts join windows with literal delimiters, so a UUID (5 words) is two windows and an ISO
timestamp with a zone (8 words) three. Four-word windows would make most of an index's keys and are
never needed for such a cut (docs/design/performance-notes.md).

*Led windows* (``window_lead``): the symbol run before a word followed by 1 to 3 words (``/users``,
``.csv``, ``?team=east``), keyed by the run and its occurrence among the value's runs equal to it,
counted from the start or from the end (keys ``("S", run, k, words - 1)``/``("E", ...)``), as a record
cut counts its fields: the third ``/`` of a URL is the third whatever its host's length. Such a window
is a pseudo-column of the values that hold it, like a field only some records have or a query string
only some URLs carry: its counts are taken relative to those values, which must be the window share
of the column (below). ``/<digit>+`` then says how often the word after a given slash is a number
in the lake's paths and URLs, which whole narrow columns cannot (``<lower>+`` has FPR 0.10 on the wide
bench lake from status words and names; ``/<lower>+`` 0.06, ``/<digit>+`` 0.007, ``.<lower>+`` 0.002).
A delimiter and one word never get ``<alphanum>+``: every word is one, so it would be pure by
construction. A path of six segments can then cost six led windows rather than six ``<alphanum>+``.

*Window share* (``window_share``, default 2): a window pattern is evidence from D only where it holds
at least half of D's values at one window (half of the values holding a led window, which half of D
must hold), not the 1/16 of whole columns. A pseudo-column D[i..j] is
our own cut by word position, and URLs of hosts with 3 and 6 words, or paths of 3 to 8 segments,
put different parts of their values at one position; the 1/16 share counted that misalignment as
the impurity of ``<lower>+/<digit>+`` (FPR 0.197 on the wide bench lake; 0.105 at one half). The
1/16 share of whole columns exists for ad-hoc special values, which a half still tolerates.

A window word is one slot whatever its runs (``28T12`` is ``<alphanum>{5}``, ``e29b`` a hex word)
and takes a coarse ladder of classes: its own class with and without length (``<digit>{4}``,
``<digit>+``; ``<lower>``/``<upper>`` words also ``<letter>+``), ``<hex>{k}``/``<hex>+`` for hex words, and
``<alphanum>{k}``/``<alphanum>+``; no constants. A word position where some value holds a hex word
(digits and a-f letters) gives ``<hex>`` to every hex-compatible word there (``1234`` among
``e29b``): UUID groups of digits only would otherwise make every ``<hex>`` window look 40% impure.
Queries offer ``<hex>`` under the same rule (:mod:`lakeindex.fmdv.hypotheses`).

Counts: only the ``MAX_WINDOWED_VALUES`` heaviest distinct values (ties broken by a hash of the
value, not its sort order) are cut, and counts are scaled by the column's weight over theirs: an
estimate, exact for columns of at most that many distinct values.
"""

from __future__ import annotations

import heapq
import re
from collections import Counter
from collections.abc import Callable
from functools import cache, partial
from itertools import product

from lakeindex.caches import WeightedLRU
from lakeindex.patterns.hierarchy import fixed, plus
from lakeindex.patterns.pattern import escape_literal
from lakeindex.patterns.sampling import Weight, value_hash

MAX_WINDOWED_VALUES = 128  # distinct values per column cut into windows (heaviest first; counts scaled)
MAX_WINDOW_SKELETONS = 8  # wide values of more skeletons than this (free text) are not cut
WINDOW_SHAPES = 64  # heaviest sub-shapes kept per window
WINDOW_WORDS = 3

_WORD_RE = re.compile(r"([A-Za-z0-9]+)|[^A-Za-z0-9]+")
_HEX = frozenset("0123456789abcdefABCDEF")
_ANY_WORD = plus("alphanum")
# bounds of window counts are inflated by this much before pruning: sums of float weights taken in
# another order may differ in their last bits
_BOUND_MARGIN = 1 + 1e-9
_OPTIONS = WeightedLRU(200_000, "patterns.windows.options")
_PATTERNS = WeightedLRU(1_000_000, "patterns.windows.patterns")

# window word kinds
W_DIGIT, W_UPPER, W_LOWER, W_MIXED, W_ALNUM = "d", "u", "l", "m", "a"
_OWN = {W_DIGIT: "digit", W_UPPER: "upper", W_LOWER: "lower", W_MIXED: "letter"}


_TOKEN_RE = re.compile(r"[A-Za-z0-9]+|[^A-Za-z0-9]+")
_ALNUM = frozenset("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")


def _word(w: str) -> tuple[str, int, bool]:
    if w.isdigit():
        kind = W_DIGIT
    elif w.isalpha():
        kind = W_UPPER if w.isupper() else W_LOWER if w.islower() else W_MIXED
    else:
        kind = W_ALNUM
    return (kind, len(w), _HEX.issuperset(w))


def window_parts(value: str, memo: dict[str, object] | None = None) -> tuple:
    """A value as window parts: symbol runs as ``str``, words as ``(kind, length, hex-compatible)``.
    ``memo`` caches tokens across the values of a column (words repeat: path segments, keys)."""
    memo = {} if memo is None else memo
    out = []
    for tok in _TOKEN_RE.findall(value):
        part = memo.get(tok)
        if part is None:
            part = memo[tok] = _word(tok) if tok[0] in _ALNUM else tok
        out.append(part)
    return tuple(out)


def skeleton(parts: tuple) -> tuple:
    """Symbols kept, words collapsed: values of one record layout share it."""
    return tuple(p if isinstance(p, str) else "" for p in parts)


def structured(parts_weights: list[tuple[tuple, Weight]]) -> bool:
    """True when a few skeletons hold 90% of the values: machine-made wide values (UUIDs, timestamps,
    records, lists of a few lengths), not free text, whose windows would describe no domain."""
    weights: dict[tuple, Weight] = {}
    for parts, w in parts_weights:
        sk = skeleton(parts)
        weights[sk] = weights.get(sk, 0) + w
    top = sum(heapq.nlargest(MAX_WINDOW_SKELETONS, weights.values()))
    return top >= 0.9 * sum(weights.values())


def value_windows(parts: tuple, tau: int, edge: int, max_words: int = WINDOW_WORDS,
                  lead: bool = False) -> list[tuple[tuple, tuple]]:
    """Windows of a value given as window parts: (window key, sub-shape) per window.

    Words i..j, 2 <= j - i + 1 <= ``max_words``, spanning at most ``tau`` tokens (a window word is one
    token), starting at one of the first ``edge`` words or ending at one of the last ``edge``. With
    ``lead``, also the symbol run before word i followed by words i..j, 1 <= j - i + 1 <= ``max_words``,
    keyed by the run, its occurrence among equal runs from the start (``"S"``) or the end (``"E"``), when
    below ``edge``, and j - i. At most ``2 * edge * (2 * max_words - 1)`` windows per value.
    """
    words = [i for i, p in enumerate(parts) if not isinstance(p, str)]
    nw = len(words)
    out: list[tuple[tuple, tuple]] = []
    # per word after a symbol run (which leads its windows): the run, its occurrence among equal runs
    # from the start and from the end
    led_at = [si for si in range(nw) if words[si] > 0] if lead else []
    times = Counter(parts[words[si] - 1] for si in led_at)
    seen: Counter[str] = Counter()
    occ: dict[int, tuple[str, int, int]] = {}
    for si in led_at:
        run = parts[words[si] - 1]
        occ[si] = (run, seen[run], times[run] - 1 - seen[run])
        seen[run] += 1
    for si in range(nw):
        first = words[si]
        led = occ.get(si)
        for ei in range(si, min(nw, si + max_words)):
            last = words[ei] + 1
            if ei > si and last - first <= tau:
                sub = parts[first:last]
                if si < edge:
                    out.append((("s", si, ei), sub))
                if nw - 1 - ei < edge:
                    out.append((("e", nw - 1 - si, nw - 1 - ei), sub))
            if led and last - first < tau:
                sub = parts[first - 1:last]
                run, k, back = led
                if k < edge:
                    out.append((("S", run, k, ei - si), sub))
                if back < edge:
                    out.append((("E", run, back, ei - si), sub))
            if last - first >= tau:  # no longer window fits, led or not
                break
    return out


def word_options(kind: str, k: int, hexable: bool, hex_context: bool) -> list[str]:
    """The coarse class ladder of one window word (module docstring)."""
    out: list[str] = []
    own = _OWN.get(kind)
    if own is not None:
        out += [fixed(own, k), plus(own)]
        if kind in (W_UPPER, W_LOWER):
            out.append(plus("letter"))
    if hexable and (kind == W_ALNUM or hex_context):
        out += [fixed("hex", k), plus("hex")]
    return out + [fixed("alphanum", k), plus("alphanum")]


def _word_ladder(key: tuple) -> list[str]:
    hit = _OPTIONS.get(key)
    if hit is None:
        kind, k, hexable, ctx = key
        hit = word_options(kind, k, hexable, ctx)
        _OPTIONS.put(key, hit, len(hit))
    return hit


def _sub_ladders(sub: tuple, hex_context: tuple[bool, ...]) -> tuple[list[str], ...]:
    """Per part of a window sub-shape, its alternatives: a symbol run's escaped text, a word's ladder. A
    delimiter and one word never get ``<alphanum>+`` (every word is one: it would be pure by construction)."""
    ladders = []
    w = 0
    for part in sub:
        if isinstance(part, str):
            ladders.append([escape_literal(part)])
        else:
            ladders.append(_word_ladder((*part, hex_context[w])))
            w += 1
    if len(sub) == 2 and isinstance(sub[0], str):
        ladders[1] = [o for o in ladders[1] if o != _ANY_WORD]
    return tuple(ladders)


def _sub_patterns(sub: tuple, hex_context: tuple[bool, ...]) -> tuple[str, ...]:
    """Every pattern of a window sub-shape (the product of its parts' ladders), cached. At most
    ``5 ** max_words`` per sub-shape (125 for 3 words), so windows are summed, not walked."""
    key = (sub, hex_context)
    hit = _PATTERNS.get(key)
    if hit is None:
        hit = tuple("".join(combo) for combo in product(*_sub_ladders(sub, hex_context)))
        _PATTERNS.put(key, hit, len(hit))
    return hit


def window_counts(values: list[tuple[str, Weight, bool]], unlisted: int, total: int, tau: int, edge: int,
                  floor: float, max_words: int = WINDOW_WORDS, lead: bool = False) -> dict[str, int]:
    """Best count of each window pattern over the windows of a column (module docstring).

    ``values``: the column's distinct values with weights and whether each is wider than tau;
    ``unlisted``: the weight of wide values not given (estimated from those given); ``total``: |D|.
    Nothing when the wide values of the sample are free text (:func:`structured`). Only counts >=
    ``floor`` are kept, from windows that at least ``floor`` values hold; a led window's count is
    relative to the values holding it (scaled to ``total``).
    """
    ranked = sorted(values, key=lambda vw: (-vw[1], value_hash(vw[0])))
    sample = ranked[:MAX_WINDOWED_VALUES]
    memo: dict[str, object] = {}
    # values of one layout of word kinds and lengths cut alike: cut each layout once, with its weight
    layouts: dict[tuple, list[Weight]] = {}
    for v, w, wide in sample:
        parts = window_parts(v, memo)
        hit = layouts.get(parts)
        if hit is None:
            layouts[parts] = [w, w if wide else 0]
        else:
            hit[0] += w
            hit[1] += w if wide else 0
    if not structured([(p, ww) for p, (_, ww) in layouts.items() if ww]):
        return {}
    listed = sum(vw[1] for vw in values) + unlisted
    scale = listed / sum(vw[1] for vw in sample)
    windows: dict[tuple, dict[tuple, Weight]] = {}
    for parts, (w, _) in layouts.items():
        for key, sub in value_windows(parts, tau, edge, max_words, lead):
            shapes = windows.get(key)
            if shapes is None:
                windows[key] = {sub: w}
            else:
                shapes[sub] = shapes.get(sub, 0) + w
    out: dict[str, int] = {}
    seen: set[tuple] = set()
    sample_floor = floor / scale
    # a window's counts depend only on its shapes' weights and hex context: windows of equal signatures
    # (list items at every position, a fixed-width value seen from either end) count once
    for key, shapes in windows.items():
        held = sum(shapes.values())  # weight of the values holding the window
        if len(shapes) > WINDOW_SHAPES:
            shapes = dict(sorted(shapes.items(), key=lambda kv: -kv[1])[:WINDOW_SHAPES])
        led = key[0] in "SE"
        sig = (frozenset(shapes.items()), held if led else 0)
        if sig in seen or sum(shapes.values()) < sample_floor:
            continue
        seen.add(sig)
        get = out.get
        if len(shapes) == 1:  # one sub-shape: each of its patterns (all distinct) has the window's weight
            (sub, n), = shapes.items()
            m = _window_evidence(n, led, held, total, scale, sample_floor, floor)
            if m is not None:
                for p in _sub_patterns(sub, _hex_context(shapes)):
                    if m > get(p, 0):
                        out[p] = m
            continue
        # a count becomes the column's evidence the same way for every pattern holding it: convert each
        # distinct count once
        evidence = cache(partial(_window_evidence, led=led, held=held, total=total, scale=scale,
                                 sample_floor=sample_floor, floor=floor))
        for p, n in _pattern_counts(shapes, evidence).items():
            m = evidence(n)
            if m is not None and m > get(p, 0):
                out[p] = m
    return out


def _window_evidence(n: float, led: bool, held: float, total: int, scale: float, sample_floor: float,
                     floor: float) -> int | None:
    """A window count as the column's count of the pattern (scaled to |D|), or None under ``floor``."""
    if led:  # a pseudo-column of the values holding the delimiter there: counts relative to them
        m = min(total, round(total * n / held))
    elif n >= sample_floor:
        m = min(total, round(n * scale))
    else:
        return None
    return m if m >= floor else None


def _pattern_counts(shapes: dict[tuple, Weight], evidence: Callable[[float], int | None]) -> dict[str, Weight]:
    """Weight of the window's values matching each pattern of its sub-shapes that may reach the floor.

    A pattern's count is at most, at each part, the weight of the sub-shapes offering its alternative
    there; ``evidence`` (None under the floor) grows with the count, so an alternative whose bound (with a
    margin for float sums taken in another order) gives None is in no pattern kept and is not expanded."""
    ctx = _hex_context(shapes)
    ladders = {sub: _sub_ladders(sub, ctx) for sub in shapes}
    bound: dict[tuple[int, str], float] = {}
    for sub, w in shapes.items():
        for j, options in enumerate(ladders[sub]):
            for o in options:
                bound[(j, o)] = bound.get((j, o), 0) + w
    live = {jo for jo, b in bound.items() if evidence(b * _BOUND_MARGIN) is not None}
    counts: dict[str, Weight] = {}
    cget = counts.get
    for sub, w in shapes.items():
        kept = [[o for o in options if (j, o) in live] for j, options in enumerate(ladders[sub])]
        if all(kept):
            for combo in product(*kept):
                p = "".join(combo)
                counts[p] = cget(p, 0) + w
    return counts


def _hex_context(shapes: dict[tuple, Weight]) -> tuple[bool, ...]:
    """Per word of a window: does some value hold a hex word (digits and a-f letters) there?"""
    ctx: list[bool] | None = None
    for sub in shapes:
        words = [p for p in sub if not isinstance(p, str)]
        if ctx is None:
            ctx = [False] * len(words)
        for j, (kind, _, hexable) in enumerate(words):
            if kind == W_ALNUM and hexable:
                ctx[j] = True
    return tuple(ctx or ())
