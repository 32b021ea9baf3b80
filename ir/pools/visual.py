"""Visual ids (docs/pooling.md): which formula instances look identical in isolation and so are judged as one
formula."""
from __future__ import annotations

from collections.abc import Iterable

from ir.pools.ids import id_order_key

__all__ = ["cluster_visual_ids", "id_order_key"]


def cluster_visual_ids(formulas: Iterable[tuple[str, str | None, str | None, str | None]]) -> dict[str, str]:
    """Map each formula id to its visual id, from (formula_id, visual_id, slt, latex) tuples.

    A non-empty visual_id from the formula index is kept as is. The formulas without one are clustered among
    themselves only: the same SLT string (after trimming; an empty or blank SLT counts as missing) makes one
    cluster; formulas without SLT are grouped by their LaTeX with all white space removed. A formula with
    neither SLT nor LaTeX stays alone. A computed cluster is named after its smallest formula id (id_order_key),
    so the name does not change when the input order does.

    Computed names are formula ids and kept names are index visual ids; if one string ended up naming two
    different clusters they would silently merge in the pool, so that raises ValueError instead.
    """
    result: dict[str, str] = {}
    kept: set[str] = set()
    # Separate namespaces: an SLT string and a LaTeX string that happen to be equal are different formulas.
    clusters: dict[tuple[str, str], list[str]] = {}
    for formula_id, visual_id, slt, latex in formulas:
        if visual_id is not None and visual_id.strip():
            result[formula_id] = visual_id.strip()
            kept.add(visual_id.strip())
            continue
        slt_key = (slt or "").strip()
        latex_key = "".join((latex or "").split())
        if slt_key:
            key = ("slt", slt_key)
        elif latex_key:
            key = ("latex", latex_key)
        else:
            key = ("alone", formula_id)
        clusters.setdefault(key, []).append(formula_id)
    for members in clusters.values():
        name = min(members, key=id_order_key)
        if name in kept:
            raise ValueError(f"computed visual id {name!r} is also a visual id of the formula index")
        for formula_id in members:
            result[formula_id] = name
    return result
