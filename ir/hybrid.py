"""Human and LLM judgments under one budget, aware of the runs (docs/llm_calibration.md, "The bias-aware rule"): the
model's grade probabilities calibrated with what the campaign knows of each item (which runs rank it in their top K,
its best rank) and people's agreement with the model per run, so that a model that over-grades some runs' top
items is caught and corrected. Pure numpy and scipy: no Django."""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
from scipy.optimize import minimize

from ir.calibration import Assessment, hybrid_grades, next_item, softmax
from ir.grades import RELEVANCE_LEVEL

TOP_K = 20  # the runs' depth the rule watches: the pool depth of a usual campaign
PENALTY = 1.0  # L2 strength, per judgment-sized unit, pulling the calibrator to the model's own probabilities
AUDIT_SHARE = 0.5  # of the budget spent auditing runs' top items; the rest goes to LARA's smallest margins
FLOOR = 1e-6  # model probabilities are clipped here before their logarithm


@dataclass(frozen=True)
class Context:
    """What the campaign knows of each item (rows in item order): its rank in each run (columns in run order,
    1 for the first, 0 where the run does not retrieve it)."""

    runs: list[str]
    ranks: np.ndarray  # items x runs, int

    def top(self, k: int = TOP_K) -> np.ndarray:
        """items x runs: whether the run ranks the item in its top `k`."""
        return (self.ranks > 0) & (self.ranks <= k)


def context_of(items: Sequence[tuple[str, str]], runs: Mapping[str, Mapping[str, Sequence[str]]]) -> Context:
    """The ranks of `items` ((topic, item) pairs) in `runs` (run -> topic -> items, best first)."""
    row = {item: index for index, item in enumerate(items)}
    names = list(runs)
    ranks = np.zeros((len(items), len(names)), dtype=int)
    for column, name in enumerate(names):
        for topic, ranked in runs[name].items():
            for rank, item in enumerate(ranked, start=1):
                index = row.get((topic, item))
                if index is not None and not ranks[index, column]:
                    ranks[index, column] = rank
    return Context(names, ranks)


def features(probabilities: np.ndarray, context: Context, *, top_k: int = TOP_K,
             relevance_level: int = RELEVANCE_LEVEL) -> np.ndarray:
    """Each item's calibration features: the log of the model's grade probabilities (first, so that the identity on
    them gives the model's own probabilities back), the log of its best rank, the share of runs with it in their
    top K, and per run whether the item is in its top K, alone and times the model's probability of a relevant
    grade (what lets a run's top items the model over-grades be told apart)."""
    top = context.top(top_k).astype(float)
    best = np.where(context.ranks > 0, context.ranks, np.iinfo(np.int64).max).min(axis=1)
    best = np.minimum(best, 10 * top_k).astype(float)
    relevant = probabilities[:, relevance_level:].sum(axis=1, keepdims=True)
    return np.hstack([np.log(np.clip(probabilities, FLOOR, 1.0)), np.log(best)[:, None] - np.log(top_k),
                      top.mean(axis=1, keepdims=True), top, top * relevant])


@dataclass
class BiasAwareCalibrator:
    """A multinomial logistic regression of the human grade on `features`, refitted on every judgment so far
    (L-BFGS) with an L2 penalty towards the model's own probabilities: identity weights on the log probabilities,
    zero elsewhere, zero intercepts. With no judgment it gives the model's probabilities back; a grade nobody has
    given yet keeps its class, its intercept pushed down only as far as the penalty lets it."""

    grades: int
    penalty: float = PENALTY
    weights: np.ndarray | None = field(default=None, init=False)  # grades x (features + 1), intercept last

    def prior(self, columns: int) -> np.ndarray:
        prior = np.zeros((self.grades, columns + 1))
        prior[:, :self.grades] = np.eye(self.grades)
        return prior

    def fit(self, x: np.ndarray, y: np.ndarray) -> None:
        prior = self.prior(x.shape[1])
        design = np.hstack([x, np.ones((len(x), 1))])
        target = np.eye(self.grades)[y]
        mask = np.ones_like(prior)
        mask[:, -1] = 0.0  # intercepts are not pulled

        def loss(flat: np.ndarray) -> tuple[float, np.ndarray]:
            weights = flat.reshape(prior.shape)
            logits = design @ weights.T
            logits -= logits.max(axis=1, keepdims=True)
            log_p = logits - np.log(np.exp(logits).sum(axis=1, keepdims=True))
            shift = (weights - prior) * mask
            value = -(target * log_p).sum() + 0.5 * self.penalty * (shift ** 2).sum()
            gradient = (np.exp(log_p) - target).T @ design + self.penalty * shift
            return float(value), gradient.ravel()

        start = prior if self.weights is None or self.weights.shape != prior.shape else self.weights
        result = minimize(loss, start.ravel(), jac=True, method="L-BFGS-B")
        self.weights = result.x.reshape(prior.shape)

    def predict(self, x: np.ndarray) -> np.ndarray:
        weights = self.prior(x.shape[1]) if self.weights is None else self.weights
        return softmax(np.hstack([x, np.ones((len(x), 1))]) @ weights.T)


def run_agreement(human: Mapping[int, int], model: np.ndarray, top: np.ndarray, *,
                  relevance_level: int = RELEVANCE_LEVEL) -> tuple[np.ndarray, np.ndarray]:
    """Per run, (judged, agreeing): how many items of its top K people judged, and on how many of them the model's
    most probable grade and the person's are on the same side of the relevance level."""
    if not human:
        return np.zeros(top.shape[1]), np.zeros(top.shape[1])
    items = np.fromiter(human, dtype=int)
    agree = (model[items] >= relevance_level) == (np.fromiter(human.values(), dtype=int) >= relevance_level)
    judged = top[items].sum(axis=0)
    return judged.astype(float), (top[items] & agree[:, None]).sum(axis=0).astype(float)


def audit_item(human: Mapping[int, int], model: np.ndarray, context: Context, rng: np.random.Generator, *,
               top_k: int = TOP_K, relevance_level: int = RELEVANCE_LEVEL) -> int | None:
    """The item an audit judges next: the run whose top K is expected to hold the most wrong model grades (its
    unjudged top-K items times its disagreement with people so far, (disagreements + 1) / (judged + 2), so that a
    run nobody has looked at counts one half; the first run among equals), then one of that run's unjudged top-K
    items drawn at random by `rng`: a sample of the run's top K, which the calibrator can learn from without the
    bias of a chosen subset. None when every run's top K is judged."""
    top = context.top(top_k)
    open_ = np.ones(len(top), dtype=bool)
    open_[list(human)] = False
    judged, agreeing = run_agreement(human, model, top, relevance_level=relevance_level)
    expected_wrong = (top & open_[:, None]).sum(axis=0) * (judged - agreeing + 1.0) / (judged + 2.0)
    if not expected_wrong.max() > 0:
        return None
    run = int(np.argmax(expected_wrong))
    candidates = np.flatnonzero(top[:, run] & open_)
    return int(candidates[rng.integers(len(candidates))])


def bias_aware_assess(probabilities: np.ndarray, context: Context, ask: Callable[[int], int], budget: int, *,
                      top_k: int = TOP_K, penalty: float = PENALTY, audit_share: float = AUDIT_SHARE,
                      relevance_level: int = RELEVANCE_LEVEL, refit_every: int = 1, seed: int = 0) -> Assessment:
    """The bias-aware loop over `budget` human judgments: of every judgment, a share `audit_share` (in turn, by
    accumulated share) goes to `audit_item`, the others to LARA's rule (smallest calibrated margin) under the
    `BiasAwareCalibrator`, refitted every `refit_every` judgments; at the end every unjudged item gets its
    calibrated most probable grade. `seed` seeds the audits' draws: the same inputs choose the same items."""
    probabilities = np.asarray(probabilities, dtype=float)
    rng = np.random.default_rng(seed)
    x = features(probabilities, context, top_k=top_k, relevance_level=relevance_level)
    model = probabilities.argmax(axis=1)
    calibrator = BiasAwareCalibrator(probabilities.shape[1], penalty)
    calibrated = calibrator.predict(x)
    order: list[int] = []
    human: dict[int, int] = {}
    audits = 0
    for step in range(min(budget, len(probabilities))):
        item = None
        if audits < audit_share * (step + 1):
            item = audit_item(human, model, context, rng, top_k=top_k, relevance_level=relevance_level)
            audits += 1
        if item is None:
            item = next_item(calibrated, human.keys())
        assert item is not None  # fewer judgments than items
        human[item] = ask(item)
        order.append(item)
        if len(order) % refit_every == 0 or len(order) == budget:
            calibrator.fit(x[order], np.array([human[i] for i in order]))
            calibrated = calibrator.predict(x)
    return Assessment(order, human, calibrated, hybrid_grades(calibrated, human))


def calibration_draws(probabilities: np.ndarray, context: Context, human: Mapping[int, int], *, top_k: int = TOP_K,
                      penalty: float = PENALTY, relevance_level: int = RELEVANCE_LEVEL
                      ) -> Callable[[np.random.Generator], np.ndarray]:
    """The calibration's own uncertainty, for `ir.hybrid_intervals`: the `BiasAwareCalibrator` fitted once on the
    judged items (`human`: item index -> grade), then each call draws its weights from the Laplace approximation of
    their posterior (a normal at the fit, of covariance the inverse Hessian of the penalised loss) and gives every
    item's calibrated probabilities under those weights. One fit, not one a replicate: at ARQMath-3's size a refit
    takes half a minute (docs/llm_calibration.md, "Intervals")."""
    probabilities = np.asarray(probabilities, dtype=float)
    x = features(probabilities, context, top_k=top_k, relevance_level=relevance_level)
    grades = probabilities.shape[1]
    calibrator = BiasAwareCalibrator(grades, penalty)
    judged = np.fromiter(human, dtype=int)
    if len(judged):
        calibrator.fit(x[judged], np.fromiter(human.values(), dtype=int))
    weights = calibrator.prior(x.shape[1]) if calibrator.weights is None else calibrator.weights
    design = np.hstack([x[judged], np.ones((len(judged), 1))])
    fitted = softmax(design @ weights.T) if len(judged) else np.zeros((0, grades))
    width = design.shape[1]
    hessian = np.zeros((grades * width, grades * width))
    for a in range(grades):
        for b in range(grades):
            share = fitted[:, a] * (float(a == b) - fitted[:, b])
            hessian[a * width:(a + 1) * width, b * width:(b + 1) * width] = design.T @ (design * share[:, None])
    mask = np.ones_like(weights)
    mask[:, -1] = 0.0  # intercepts are not pulled: a small ridge keeps the shared shift of all of them finite
    hessian += np.diag(penalty * mask.ravel() + 1e-6)
    factor = np.linalg.cholesky(hessian)
    everything = np.hstack([x, np.ones((len(x), 1))])

    def draw(rng: np.random.Generator) -> np.ndarray:
        step = np.linalg.solve(factor.T, rng.standard_normal(len(hessian)))  # covariance: the Hessian's inverse
        return softmax(everything @ (weights + step.reshape(weights.shape)).T)
    return draw


def qrels_of(items: Sequence[tuple[str, str]], grades: Sequence[int] | np.ndarray) -> dict[str, dict[str, int]]:
    """Qrels (topic -> item -> grade) of items in order and their grades."""
    qrels: dict[str, dict[str, int]] = {}
    for (topic, item), grade in zip(items, grades, strict=True):
        qrels.setdefault(topic, {})[item] = int(grade)
    return qrels
