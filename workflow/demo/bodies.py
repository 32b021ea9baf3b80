"""HTML bodies of the demo posts, their formulas numbered in post order as in the ARQMath formula index."""
from __future__ import annotations

import html
import random
import re
from collections import defaultdict

from workflow.demo.collection import Formula, Post
from workflow.demo.common import FORMULA_ID_START, GENERIC_WORDS, SENTENCES, latex_key

CODE_SNIPPETS = (
    "from sympy import symbols, integrate\nx = symbols('x')\nprint(integrate(x**2, (x, 0, 1)))",
    "for n in range(1, 10):\n    print(n, n**2 % 7)",
    "f[x_] := x^2 + 1\nPlot[f[x], {x, -2, 2}]",
    "if a < b && b > 0:\n    a, b = b, a",
)
WIKI_PAGES = (
    "Cauchy%E2%80%93Schwarz_inequality", "H%C3%B6lder%27s_inequality",
    "Fundamental_theorem_of_calculus", "Jordan_normal_form", "Chinese_remainder_theorem",
    "Lebesgue_integration", "Pigeonhole_principle", "Taylor_series", "Sylow_theorems",
    "Stirling%27s_approximation", "Inclusion%E2%80%93exclusion_principle",
)
_SLOT = re.compile(r"\{([fw])\}")


class BodyWriter:
    """Renders post bodies as HTML and numbers their formulas in post order, as ARQMath does."""

    def __init__(self, rng: random.Random, pool: list[str], posts: list[Post]):
        self.rng = rng
        self.pool = pool
        self.posts = posts
        self.formulas: list[Formula] = []
        self._visual: dict[str, int] = {}
        self._questions = [p for p in posts if not p.parent]
        self._answers = [p.id for p in posts if p.parent]
        self._by_subject: dict[str, list[Post]] = defaultdict(list)
        for post in self._questions:
            if post.subject:
                self._by_subject[post.subject.number].append(post)
        self._post: Post | None = None

    def render_all(self) -> list[Formula]:
        for post in self.posts:
            self._post = post
            post.body = self._answer_body() if post.parent else self._question_body()
        return self.formulas

    # -- pieces

    def _math(self, latex: str, display: bool = False) -> str:
        post = self._post
        assert post is not None
        fid = FORMULA_ID_START + len(self.formulas)
        key = latex_key(latex)
        # The smallest formula id with this key (docs/pooling.md): the index agrees with what the clustering computes.
        visual = self._visual.setdefault(key, fid)
        kind = "answer" if post.parent else "question"
        self.formulas.append(Formula(fid, post.id, post.thread, kind, visual, key, latex))
        dollars = "$$" if display else "$"
        return (f'<span class="math-container" id="{fid}">'
                f"{dollars}{html.escape(latex, quote=False)}{dollars}</span>")

    def _latex(self) -> str:
        subject = self._post.subject if self._post else None
        if subject and subject.formulas and self.rng.random() < 0.5:
            return self.rng.choice(subject.formulas)
        return self.rng.choice(self.pool)

    def _word(self) -> str:
        subject = self._post.subject if self._post else None
        words = subject.words if subject and self.rng.random() < 0.6 else GENERIC_WORDS
        return self.rng.choice(words)

    def _sentence(self) -> str:
        def fill(slot: re.Match[str]) -> str:
            return self._math(self._latex()) if slot.group(1) == "f" else self._word()

        return _SLOT.sub(fill, self.rng.choice(SENTENCES))

    def _paragraph(self, sentences: int) -> str:
        return "<p>" + " ".join(self._sentence() for _ in range(sentences)) + "</p>"

    def _display(self, latex: str | None = None) -> str:
        return f"<p>{self._math(latex or self._latex(), display=True)}</p>"

    # -- bodies

    def _question_body(self) -> str:
        rng = self.rng
        blocks = [self._paragraph(rng.randint(1, 2)) for _ in range(rng.randint(1, 2))]
        if rng.random() < 0.3:
            blocks.insert(1, self._display())
        if rng.random() < 0.02:
            blocks.append(self._image())
        return "\n\n".join(blocks) + "\n"

    def _answer_body(self) -> str:
        rng = self.rng
        post = self._post
        assert post is not None
        blocks = [self._paragraph(rng.randint(1, 2))]
        blocks += [self._display(latex) for latex in post.planted]
        if rng.random() < 0.25:
            blocks.append(self._display())
        extras = ((0.12, self._list), (0.06, self._quote), (0.04, self._code),
                  (0.15, self._internal_link), (0.1, self._external_link), (0.03, self._image))
        blocks += [make() for chance, make in extras if rng.random() < chance]
        if rng.random() < 0.3:
            blocks.append(self._paragraph(1))
        return "\n\n".join(blocks) + "\n"

    def _list(self) -> str:
        tag = self.rng.choice(("ul", "ol"))
        items = "".join(f"<li>{self._sentence()}</li>\n" for _ in range(self.rng.randint(2, 4)))
        return f"<{tag}>\n{items}</{tag}>"

    def _quote(self) -> str:
        return f"<blockquote>\n  <p>{self._sentence()}</p>\n</blockquote>"

    def _code(self) -> str:
        return f"<pre><code>{html.escape(self.rng.choice(CODE_SNIPPETS), quote=False)}\n</code></pre>"

    def _image(self) -> str:
        name = "".join(self.rng.choices("abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789", k=7))
        return f'<p><img src="https://i.sstatic.net/{name}.png" alt="diagram"></p>'

    def _internal_link(self) -> str:
        rng = self.rng
        post = self._post
        assert post is not None
        related = self._by_subject.get(post.subject.number, []) if post.subject else []
        question = rng.choice(related if related and rng.random() < 0.7 else self._questions)
        slug = re.sub(r"[^a-z0-9]+", "-", question.title.lower()).strip("-")
        url, text = rng.choice((
            (f"https://math.stackexchange.com/questions/{question.id}", "this question"),
            (f"https://math.stackexchange.com/questions/{question.id}/{slug}", question.title),
            (f"https://math.stackexchange.com/q/{question.id}", "a related question"),
            (f"https://math.stackexchange.com/a/{rng.choice(self._answers)}", "this answer"),
        ))
        return f'<p>See also <a href="{html.escape(url)}">{html.escape(text, quote=False)}</a>.</p>'

    def _external_link(self) -> str:
        rng = self.rng
        if rng.random() < 0.15:
            url = "https://www.wolframalpha.com/input?i=sum+1%2Fn%5E2&assumption=real"
            text = "WolframAlpha"
        else:
            page = rng.choice(WIKI_PAGES)
            url, text = f"https://en.wikipedia.org/wiki/{page}", page.replace("_", " ")
        return (f'<p>This is explained on <a href="{html.escape(url)}" rel="nofollow noreferrer">'
                f"{html.escape(text, quote=False)}</a>.</p>")
