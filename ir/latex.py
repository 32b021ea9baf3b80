"""What the LaTeX tables for the paper share (evaluation/report.py's results and assessment, evaluation/editions.py's
results across editions): the escaping of text and the prime measures' headings."""
from __future__ import annotations

import re

HEADINGS = {"ndcg_prime": "nDCG$'$", "map_prime": "MAP$'$", "p10_prime": "P$'$@10"}

_LATEX = {"&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "{": r"\{", "}": r"\}",
          "~": r"\textasciitilde{}", "^": r"\textasciicircum{}", "\\": r"\textbackslash{}"}


def latex_escape(text: str) -> str:
    return re.sub(r"[&%$#_{}~^\\]", lambda match: _LATEX[match.group()], text)
