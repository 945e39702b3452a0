"""count(p) for every pattern p of a (pseudo-)column that describes enough of it: a pruned prefix walk.

Given a column as ``shape -> [(slot texts, weight)]`` and an option source (the per-part
alternatives of the hierarchy, :mod:`lakeindex.patterns.templates`), the patterns of P(D) are
walked left to right, one part option at a time. A *state* is a pattern prefix; its weight is the
weight of the values that can still complete it (every shape whose parts so far took options
writing exactly that prefix, restricted to the values carrying its constants). The values matching
a pattern are a subset of those reaching any of its prefixes, so a prefix lighter than the evidence
floor (|D|/min_share, and |D|/const_share once it holds a constant) cannot lead to a kept pattern
and is dropped with everything below it: the Apriori principle on prefixes. The result is exact,
P(D) restricted to the patterns that match at least the floor, but the work is that of surviving
prefixes, not of every template of every shape.

Threads (a shape at a part, with the values still in) are grouped by the options their next part
offers, so a class option extends a whole group at once; only constants look at single values.

Bound: at one depth, each value reaches at most as many states as it has templates (``budget``),
and every state kept weighs at least |D|/min_share, so at most ``min_share * budget`` states are
alive at once (131,072 with the defaults), whatever the column.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Protocol

from lakeindex.patterns.sampling import Weight

Members = list[tuple[tuple[str, ...], Weight]]  # (slot texts, weight) of distinct values of one shape
# One alternative for a part: (literal text or None when it holds constants, %-format text,
# constant slots relative to the part's first slot, parts consumed)
Prepared = tuple[str | None, str, tuple[int, ...], int]


class OptionSource(Protocol):
    """Where the walk gets its alternatives from: whole-value hierarchy or window ladder."""

    def shape_info(self, shape: tuple) -> tuple[list[Hashable], list[int], int]:
        """Per part: an option-group key and its first slot index; and the constant slots allowed."""

    def options(self, key: Hashable) -> list[Prepared]:
        """The alternatives of a part with this key."""


# a text's carried weight is inflated by this much before it is called rare: the walk's sums of float
# (sampled) weights may differ from it in their last bits
_CARRIED_MARGIN = 1 + 1e-9

# thread: (shape index, next part, members, weight, constants fixed so far, constant slots used)
Thread = tuple[int, int, Members, Weight, tuple, int]


class _State:
    __slots__ = ("groups", "done", "const")

    def __init__(self, const: bool) -> None:
        self.groups: dict[Hashable, list[tuple[list[Thread], Weight]]] = {}
        self.done: list[tuple[int, tuple, Weight, Members]] = []
        self.const = const


def count_patterns(groups: dict[tuple, Members], source: OptionSource, floor: float,
                   const_floor: float) -> dict[str, Weight]:
    """Patterns matched by at least ``floor`` values (``const_floor`` if they hold constants), with counts."""
    infos = []
    root = _State(False)
    for si, (shape, members) in enumerate(groups.items()):
        keys, starts, nconst = source.shape_info(shape)
        infos.append((keys, starts, nconst, len(shape)))
        if shape:
            w = sum(m[1] for m in members)
            root.groups.setdefault(keys[0], []).append(([(si, 0, members, w, (), 0)], w))
    const_floor = max(floor, const_floor)
    # texts too light to be the constant of a kept pattern (with a margin: the walk sums the same float
    # weights in another order); a prefix holding one is never built
    rare = {t for t, w in _carried(groups).items() if w * _CARRIED_MARGIN < const_floor}
    counts: dict[str, Weight] = {}
    frontier: dict[str, _State] = {"": root}
    option_cache: dict[Hashable, list[Prepared]] = {}

    def options(gkey: Hashable) -> list[Prepared]:
        hit = option_cache.get(gkey)
        if hit is None:
            hit = option_cache[gkey] = source.options(gkey)
        return hit

    while frontier:
        nxt: dict[str, _State] = {}
        splits: dict[tuple[int, tuple[int, ...]], list[tuple[tuple[str, ...], Members, Weight]]] = {}
        for text, state in frontier.items():
            need = const_floor if state.const else floor
            if state.done:
                done = _done_weight(state.done)
                if done >= need and done > 0:
                    counts[text] = done
            # an upper bound of each class extension's weight first: light ones are never built
            bound: dict[str, Weight] = {}
            weights: dict[Hashable, Weight] = {}
            for gkey, chunks in state.groups.items():
                gw = weights[gkey] = sum(c[1] for c in chunks)
                for literal, _, _, _ in options(gkey):
                    if literal is not None:
                        bound[literal] = bound.get(literal, 0) + gw
            # a constant's weight is merged over every group of the state (``1`` of ``1.5`` and of ``1.x``):
            # only the state's whole weight bounds it
            const_ok = sum(weights.values()) >= const_floor
            const_opts: list[tuple[str, tuple[int, ...], int, list[Thread]]] = []
            for gkey, chunks in state.groups.items():
                threads: list[Thread] | None = None
                advanced: dict[int, tuple[dict[Hashable, tuple[list[Thread], Weight]], list]] = {}
                for literal, fmt, rel, step in options(gkey):
                    if literal is None:
                        if const_ok:
                            if threads is None:
                                threads = [t for chunk, _ in chunks for t in chunk]
                            const_opts.append((fmt, rel, step, threads))
                        continue
                    if bound[literal] < need:
                        continue
                    adv = advanced.get(step)
                    if adv is None:
                        if threads is None:
                            threads = [t for chunk, _ in chunks for t in chunk]
                        adv = advanced[step] = _advance(threads, step, infos)
                    key = text + literal
                    new = nxt.get(key)
                    if new is None:
                        new = nxt[key] = _State(state.const)
                    for nk, chunk in adv[0].items():
                        lst = new.groups.get(nk)
                        if lst is None:
                            new.groups[nk] = [chunk]
                        else:
                            lst.append(chunk)
                    if adv[1]:
                        new.done.extend(adv[1])
            if const_opts:
                _extend_constants(text, const_opts, infos, splits, const_floor, nxt, rare)
        frontier = nxt
    return counts


def _extend_constants(text: str, const_opts: list, infos: list, splits: dict, const_floor: float,
                      nxt: dict[str, _State], rare: set[str]) -> None:
    """Extend a state by its constant options: one new state per constant text whose weight, summed over
    every thread of the state that writes it, reaches the constant floor (lighter ones, and those holding
    a ``rare`` text, are never built)."""
    found: list[tuple[str, Thread, tuple[int, ...], tuple[str, ...], Members, Weight, int]] = []
    weight: dict[str, Weight] = {}
    for fmt, rel, step, threads in const_opts:
        shifted: dict[int, tuple[int, ...]] = {0: rel}  # the option's slots from each first slot
        for thread in threads:
            si, pos, members, _, _, used = thread
            _, starts, nconst, nparts = infos[si]
            if used + len(rel) > nconst or pos + step > nparts:
                continue
            start = starts[pos]
            slots = shifted.get(start)
            if slots is None:
                slots = shifted[start] = tuple(start + j for j in rel)
            skey = (id(members), slots)
            parts = splits.get(skey)
            if parts is None:
                parts = splits[skey] = _split(members, slots, rare)
            for consts, sub, sw in parts:
                key = text + fmt % consts
                weight[key] = weight.get(key, 0) + sw
                found.append((key, thread, slots, consts, sub, sw, step))
    for key, (si, pos, _, _, ckey, used), slots, consts, sub, sw, step in found:
        if weight[key] < const_floor:
            continue
        new = nxt.get(key)
        if new is None:
            new = nxt[key] = _State(True)
        t = (si, pos + step, sub, sw, ckey + ((slots, consts),), used + len(slots))
        keys, _, _, nparts = infos[si]
        if pos + step == nparts:
            new.done.append((si, t[4], sw, sub))
        else:
            new.groups.setdefault(keys[pos + step], []).append(([t], sw))


def _advance(threads: list[Thread], step: int, infos: list) -> tuple[dict[Hashable, tuple[list[Thread], Weight]], list]:
    """Threads moved ``step`` parts on, grouped by their next part's key; those that finished."""
    by: dict[Hashable, list[Thread]] = {}
    weight: dict[Hashable, Weight] = {}
    done = []
    for si, pos, members, w, ckey, used in threads:
        keys, _, _, nparts = infos[si]
        npos = pos + step
        if npos > nparts:
            continue
        if npos == nparts:
            done.append((si, ckey, w, members))
            continue
        k = keys[npos]
        lst = by.get(k)
        if lst is None:
            by[k] = [(si, npos, members, w, ckey, used)]
            weight[k] = w
        else:
            lst.append((si, npos, members, w, ckey, used))
            weight[k] += w
    return {k: (lst, weight[k]) for k, lst in by.items()}, done


def _done_weight(done: list[tuple[int, tuple, Weight, Members]]) -> Weight:
    """Weight of the values that complete a pattern: one value, one count, however many parses reach it.

    Parses of one shape with the same constants reach the same values. With constants at different
    slots (``<num>.2.<num>`` of ``10.2.2.7``: the ``2`` of either middle word) they may reach the same
    value twice, so such a shape's values are united by their slot texts.
    """
    by_shape: dict[int, dict[tuple, tuple[Weight, Members]]] = {}
    for si, ckey, w, members in done:
        by_shape.setdefault(si, {}).setdefault(ckey, (w, members))
    total: Weight = 0
    for parses in by_shape.values():
        if len(parses) == 1:
            total += next(iter(parses.values()))[0]
        else:
            union = {texts: w for _, members in parses.values() for texts, w in members}
            total += sum(union.values())
    return total


def _split(members: Members, slots: tuple[int, ...], rare: set[str]) -> list[tuple[tuple[str, ...], Members, Weight]]:
    """Members grouped by their texts at ``slots``, those holding a ``rare`` text left out (the floor
    applies to the merged state, not here: one constant may be common only across shapes, as ``ID`` over
    ``ID-7`` and ``ID-12``)."""
    by: dict[tuple[str, ...], Members] = {}
    weight: dict[tuple[str, ...], Weight] = {}
    for m in members:
        consts = tuple(m[0][j] for j in slots)
        if not rare.isdisjoint(consts):
            continue
        lst = by.get(consts)
        if lst is None:
            by[consts] = [m]
            weight[consts] = m[1]
        else:
            lst.append(m)
            weight[consts] += m[1]
    return [(c, by[c], w) for c, w in weight.items()]


def _carried(groups: dict[tuple, Members]) -> dict[str, Weight]:
    """Weight of the values carrying each slot text (anywhere): a pattern holding a text as a constant
    matches only such values, so its count is at most the text's."""
    carried: dict[str, Weight] = {}
    for members in groups.values():
        for slots, w in members:
            for t in set(slots):
                carried[t] = carried.get(t, 0) + w
    return carried


def sum_counts(groups: dict[tuple, Members], templates: Callable[[tuple], tuple[tuple[str, ...], dict]],
               floor: float, const_floor: float) -> dict[str, Weight]:
    """The same counts as :func:`count_patterns`, summed shape by shape from each shape's templates
    (``templates(shape)`` gives constant-free patterns and %-formats per constant slot set, cached
    across columns). Cheaper when a column has few shapes, or shapes already seen.

    A constant text can only be part of a kept pattern if the values carrying it, anywhere, reach
    the constant floor; other texts (the digits of a million IDs) are never instantiated.
    """
    const_floor = max(floor, const_floor)
    carried = _carried(groups)
    counts: dict[str, Weight] = {}
    consts: dict[str, Weight] = {}
    get, cget = counts.get, consts.get
    for shape, members in groups.items():
        free, by_slots = templates(shape)
        wsum = sum(w for _, w in members)
        for p in free:
            counts[p] = get(p, 0) + wsum
        if not by_slots:
            continue
        nslots = len(members[0][0])
        # per slot, the texts that may stay constant: slot sets holding a slot without any are skipped
        ok = [{slots[j] for slots, _ in members if carried[slots[j]] >= const_floor} for j in range(nslots)]
        local: dict[str, Weight] = {}
        source: dict[str, tuple[int, ...]] = {}  # the slot set that first wrote each pattern
        twice: dict[str, list[tuple[tuple[int, ...], str]]] = {}  # patterns written from several slot sets
        for slot_set, fmts in by_slots.items():
            if not all(ok[j] for j in slot_set):
                continue
            combos: dict[tuple[str, ...], Weight] = {}
            for slots, w in members:
                key = tuple(slots[j] for j in slot_set)
                if all(t in ok[j] for t, j in zip(key, slot_set, strict=True)):
                    combos[key] = combos.get(key, 0) + w
            for key, n in combos.items():
                for f in fmts:
                    p = f % key
                    first = source.setdefault(p, slot_set)
                    if first != slot_set:
                        twice.setdefault(p, []).append((slot_set, f))
                    local[p] = local.get(p, 0) + n
        for p, more in twice.items():
            # the same pattern with constants at other slots (``<num>.2.<num>`` of ``10.2.2.7``): a value
            # counts once, so count the values any of its writings reach
            writes = [(source[p], f) for f in by_slots[source[p]]] + more
            local[p] = sum(w for slots, w in members
                           if any(f % tuple(slots[j] for j in ss) == p for ss, f in writes))
        for p, n in local.items():
            consts[p] = cget(p, 0) + n
    out = {p: n for p, n in counts.items() if n >= floor and n > 0}
    out.update((p, n) for p, n in consts.items() if n >= const_floor)
    return out
