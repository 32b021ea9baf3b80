"""Organizer pages shorten topic titles without cutting a formula in half (issue 13.6)."""
from core.templatetags.math_text import math_title, truncate_math


def test_a_short_title_is_left_whole():
    assert truncate_math("Limit of $x^n$ as $n\\to\\infty$", 120) == "Limit of $x^n$ as $n\\to\\infty$"


def test_a_cut_inside_a_formula_leaves_the_formula_out_whole():
    title = "Prove that $\\lim_{n\\to\\infty} \\frac{1}{n} = 0$ for every real sequence"
    short = truncate_math(title, 30)
    assert short == "Prove that…"
    assert len(short) <= 30


def test_a_cut_in_words_falls_on_a_space_outside_formulas():
    title = "Why is $a + b$ equal to the sum of everything we know"
    assert truncate_math(title, 30) == "Why is $a + b$ equal to the…"
    assert truncate_math(title, 15) == "Why is $a + b$…"


def test_a_title_that_starts_with_a_long_formula_keeps_it_whole():
    assert truncate_math("$\\sum_{k=1}^{\\infty} \\frac{1}{k^2}$ converges?", 10) == \
        "$\\sum_{k=1}^{\\infty} \\frac{1}{k^2}$…"


def test_display_math_escaped_dollars_and_unclosed_formulas():
    assert truncate_math("Costs \\$5 and $$\\int_0^1 f(x)\\,dx$$ more text here", 25) == "Costs \\$5 and…"
    assert truncate_math("An unclosed $\\frac{1}{2} and so on and so on", 20) == "An unclosed…"
    assert truncate_math("Brackets \\(\\infty\\) then a lot more words", 14) == "Brackets…"


def test_math_title_strips_tags_and_entities_before_cutting():
    title = 'Is <span class="math-container" id="q_1">$x &lt; \\infty$</span>   finite?'
    assert math_title(title) == "Is $x < \\infty$ finite?"
    assert math_title(title, 8) == "Is…"
