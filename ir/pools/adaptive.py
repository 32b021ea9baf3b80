"""Adaptive judging order (docs/pooling.md, "Judging order"): which pooled item an assessor judges next, given the
judgments so far.

Three policies over a topic's pool and its provenance, all seeded and pure (docs/pooling.md, "Judging order"):
`random` (ARQMath's display order), `move-to-front` (Cormack, Palmer & Clarke 1998: run priorities, as Li &
Kanoulas's code implements it) and `bandit` (Losada, Parapar & Barreiro's MM-NS: max-mean over a Beta posterior of each
run's precision, stationary). Two guards wrap every policy: a warm-up of random items while the assessor learns the
topic, and a minimum depth every run is judged to.
"""
from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence

from ir.pools.ids import id_order_key, seeded_rng
from ir.pools.order import display_order

POLICIES = ("random", "move-to-front", "bandit")
DEFAULT_POLICY = "random"
# A campaign's warm-up unless its organizer sets another, and the simulator's (docs/pooling.md "Live order and
# budgets"): a simulation with the defaults replays what a campaign with the defaults shows its assessors.
WARM_UP = 5

Pool = Mapping[str, Sequence[tuple[str, int]]]


def next_items(policy: str, pool: Pool, judged: Mapping[str, bool], *, seed: int, warm_up: int = WARM_UP,
               min_depth: int = 0, count: int = 1, exclude: Collection[str] = (), topic_id: str = "") -> list[str]:
    """The next `count` item ids to judge, in order, of `pool` (item id -> its provenance [(run, rank), ...]) given
    `judged` (item id -> relevant at the campaign's relevance level, for the items judged so far, in the order they
    were judged: a dict keeps insertion order). Items in `judged` or `exclude` are never returned. Deterministic for a
    seed. The first `warm_up` judgments of an assignment come in random order; every run's items of rank <= min_depth
    come before any other (in the policy's order among them).

    Random order is `display_order(pool, seed=seed, topic_id=topic_id)`, so with the campaign's seed and the topic's
    id it is the order assessors saw before this module existed. Past the first item, the list is what the policy
    would choose if nothing were learnt from the items before it (a fetch-ahead replaces it after each judgment).
    """
    judging = Judging(policy, pool, seed=seed, warm_up=warm_up, min_depth=min_depth, topic_id=topic_id,
                      exclude=exclude)
    for item, relevant in judged.items():
        judging.record(item, relevant)
    chosen: list[str] = []
    while len(chosen) < count:
        taken = judging.take()
        if taken is None:
            break
        chosen.append(taken)
    return chosen


class Judging:
    """One assignment's judging of one topic under a policy: `record` each judgment, `take` the next choice.

    The simulator drives it step by step; `next_items` replays the stored judgments through it. Every step costs
    O(runs), not O(pool): each run keeps a pointer into its items in rank order, past the items already done.
    """

    def __init__(self, policy: str, pool: Pool, *, seed: int, warm_up: int = WARM_UP, min_depth: int = 0,
                 topic_id: str = "", exclude: Iterable[str] = ()) -> None:
        if policy not in POLICIES:
            raise ValueError(f"unknown judging order {policy!r}: one of {', '.join(POLICIES)}")
        if warm_up < 0 or min_depth < 0:
            raise ValueError("warm_up and min_depth must not be negative")
        self.policy = policy
        self.warm_up = warm_up
        self.pool = pool
        self.judgments = 0          # judgments and items taken: the warm-up counts both
        self.done: set[str] = set(exclude)
        self.random = display_order(pool, seed=seed, topic_id=topic_id)
        # Items every run must have judged (some run ranks them <= min_depth): judged first, in the policy's order.
        self.must = {item for item, prov in pool.items() if any(rank <= min_depth for _, rank in prov)}
        self.must_left = len(self.must - self.done)
        self.min_depth = min_depth
        self._random_at = 0
        self._must_random_at = 0
        streams: dict[str, list[tuple[int, str]]] = {}
        for item, prov in pool.items():
            for run, rank in prov:
                streams.setdefault(run, []).append((rank, item))
        self.streams = {run: sorted(entries, key=lambda e: (e[0], id_order_key(e[1])))
                        for run, entries in streams.items()}
        self._at = dict.fromkeys(self.streams, 0)
        # One seeded order of the runs: move-to-front's and the bandit's tie-break.
        runs = sorted(self.streams, key=id_order_key)
        seeded_rng(seed, topic_id, "runs").shuffle(runs)
        self.tie = {run: i for i, run in enumerate(runs)}
        # Move-to-front's priorities: every run starts at the top (0 misses); a non-relevant item the policy read from
        # a run lowers that run's priority by one, and the next choice is another run's (`_left`).
        self.misses = dict.fromkeys(runs, 0)
        self._left: str | None = None
        self.relevant = dict.fromkeys(runs, 0)
        self.non_relevant = dict.fromkeys(runs, 0)

    def take(self) -> str | None:
        """The policy's next item, counted as on its way to the assessor; None when every item is done."""
        item = self._choice()[1]
        if item is not None:
            self._mark(item)
            self.judgments += 1
        return item

    def record(self, item: str, relevant: bool) -> None:
        """A judgment of `item`: move-to-front lowers the priority of the run it read the item from if it is not
        relevant; the bandit counts it for every run that retrieved the item. Judgments the policy did not choose
        (warm-up, minimum depth, an item judged before the order changed) count for the bandit; move-to-front only
        learns from its own choices."""
        if item in self.done:
            # Already taken by `take` (the simulator): the choice was made then; only its outcome is new.
            chosen_run = self._last_run if item == self._last_item else None
        else:
            chosen_run, chosen_item = self._choice()
            if chosen_item != item:
                chosen_run = None
            self._mark(item)
            self.judgments += 1
        if self.policy == "move-to-front":
            self._left = chosen_run if chosen_run is not None and not relevant else None
            if self._left is not None:
                self.misses[self._left] += 1
        for run, _ in self.pool.get(item, ()):
            if relevant:
                self.relevant[run] += 1
            else:
                self.non_relevant[run] += 1

    _last_item: str | None = None
    _last_run: str | None = None

    def _mark(self, item: str) -> None:
        if item not in self.done:
            self.done.add(item)
            if item in self.must:
                self.must_left -= 1

    def _choice(self) -> tuple[str | None, str | None]:
        """(run, item) the policy chooses now; run is None for a random choice."""
        must_phase = self.must_left > 0
        if self.policy == "random" or self.judgments < self.warm_up:
            item = self._next_random(must_phase)
            run = None
        else:
            run, item = self._policy_choice(must_phase)
        self._last_run, self._last_item = run, item
        return run, item

    def _next_random(self, must_phase: bool) -> str | None:
        order = self.random
        if must_phase:
            while self._must_random_at < len(order) and (order[self._must_random_at] in self.done
                                                         or order[self._must_random_at] not in self.must):
                self._must_random_at += 1
            return order[self._must_random_at] if self._must_random_at < len(order) else None
        while self._random_at < len(order) and order[self._random_at] in self.done:
            self._random_at += 1
        return order[self._random_at] if self._random_at < len(order) else None

    def _head(self, run: str, must_phase: bool) -> str | None:
        """The run's next item not done yet, in rank order; in the minimum-depth phase, only within its top d."""
        stream = self.streams[run]
        at = self._at[run]
        while at < len(stream) and stream[at][1] in self.done:
            at += 1
        self._at[run] = at
        if at == len(stream) or (must_phase and stream[at][0] > self.min_depth):
            return None
        return stream[at][1]

    def _policy_choice(self, must_phase: bool) -> tuple[str | None, str | None]:
        if self.policy == "move-to-front":
            # The run of highest priority (fewest misses), ties in the seeded order, that has an item left; not the
            # run that has just missed, unless it alone has items left.
            top: tuple[int, int] | None = None
            picked: tuple[str | None, str | None] = (None, None)
            alone: tuple[str | None, str | None] = (None, None)
            for run in self.tie:
                item = self._head(run, must_phase)
                if item is None:
                    continue
                if run == self._left:
                    alone = (run, item)
                    continue
                rank = (self.misses[run], self.tie[run])
                if top is None or rank < top:
                    top, picked = rank, (run, item)
            return picked if picked[1] is not None else alone
        best: tuple[float, int] | None = None
        choice: tuple[str | None, str | None] = (None, None)
        for run in self.tie:
            item = self._head(run, must_phase)
            if item is None:
                continue
            key = (self.posterior_mean(run), -self.tie[run])
            if best is None or key > best:
                best, choice = key, (run, item)
        return choice

    def posterior_mean(self, run: str) -> float:
        """The mean of the run's Beta(1 + relevant, 1 + non-relevant) posterior over its precision: MM's value.

        A float is exact enough to tell ties: division is correctly rounded, so equal fractions (1/2, 2/4) give the
        same float, and two different fractions with denominators below 10^6 differ by far more than a rounding."""
        relevant = self.relevant[run]
        return (1 + relevant) / (2 + relevant + self.non_relevant[run])
