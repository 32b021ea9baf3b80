"""The `uncertain` judging order (docs/pooling.md, "Judging order"): a person judges next the item whose calibrated
LLM grade is least sure, the smallest margin between its two most probable calibrated grades (LARA's selection,
docs/llm_calibration.md), under the guards of every order: a warm-up in random order and every run's minimum depth
first. Pure: the live order (judging/ordering.py) feeds it the stored calibration, and the simulator may too."""
from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence

from ir.pools.adaptive import WARM_UP, Pool, next_items
from ir.pools.order import display_order

Calibrated = Mapping[str, Sequence[float]]  # item id -> its calibrated probability of grade 0, 1, ...


def margin(probabilities: Sequence[float]) -> float:
    """The most probable grade's probability minus the second one's (1 for a single grade)."""
    top = sorted(probabilities, reverse=True)
    return top[0] - top[1] if len(top) > 1 else 1.0


def smallest_margin(candidates: Iterable[str], calibrated: Calibrated) -> str | None:
    """Of `candidates` (in the order's tie-break order: the campaign's random display order), the one of smallest
    margin, the first among equal ones; an item without calibrated probabilities comes after every item with them
    (nothing says it is unsure), in that order too. None without a candidate."""
    best: tuple[float, int] | None = None
    chosen = None
    for position, item in enumerate(candidates):
        found = calibrated.get(item)
        key = (margin(found) if found is not None else 2.0, position)
        if best is None or key < best:
            best, chosen = key, item
    return chosen


def uncertain_items(pool: Pool, judged: Mapping[str, bool] | Collection[str], calibrated: Calibrated | None, *,
                    seed: int, warm_up: int = WARM_UP, min_depth: int = 0, count: int = 1,
                    exclude: Collection[str] = (), topic_id: str = "") -> list[str]:
    """The next `count` item ids to judge of `pool` (item id -> provenance [(run, rank), ...]) given the items
    `judged` so far, as `ir.pools.adaptive.next_items` gives another order's: never a judged or excluded item; the
    first `warm_up` judgments (and items taken) in the random display order; while some run's items of rank <=
    `min_depth` are left, only those. Past the warm-up, the smallest margin of `calibrated`. Without a calibration
    (None or empty) the order is random's. The calibration does not change within the list: a fetch-ahead's items
    past the first are what would come if nothing were learnt meanwhile."""
    if not calibrated:
        return next_items("random", pool, dict.fromkeys(judged, False), seed=seed, warm_up=warm_up,
                          min_depth=min_depth, count=count, exclude=exclude, topic_id=topic_id)
    order = display_order(pool, seed=seed, topic_id=topic_id)
    done = {*judged, *exclude}
    must = {item for item, prov in pool.items() if any(rank <= min_depth for _, rank in prov)}
    steps = len(judged)
    chosen: list[str] = []
    while len(chosen) < count:
        left = [item for item in order if item not in done]
        candidates = [item for item in left if item in must] or left
        if not candidates:
            break
        item = candidates[0] if steps < warm_up else smallest_margin(candidates, calibrated)
        assert item is not None
        chosen.append(item)
        done.add(item)
        steps += 1
    return chosen
