"""The pure functions of the LLM judge: a reply's grade, the samples' majority, a prompt filled in, HTML as text."""
from ir.html_text import html_text
from ir.llm_replies import majority, prompt_fill, reply_grade, template_fields


def test_grade_is_read_from_the_final_score_line():
    assert reply_grade("M: 2\nT: 1\n##final score: 3") == 3
    assert reply_grade("**Final Score:** 1") == 1
    assert reply_grade("final score is 0.") == 0


def test_the_last_final_score_counts():
    assert reply_grade("Format: ##final score: 3\n...\n##final score: 1") == 1


def test_a_reply_without_a_grade_is_none_never_zero():
    assert reply_grade("I think this passage is relevant.") is None
    assert reply_grade("") is None
    assert reply_grade(None) is None
    assert reply_grade("##final score: 7") is None  # out of the scale
    assert reply_grade("##final score: 3", grades=(0, 1)) is None


def test_majority_of_samples_and_ties_go_to_the_lower_grade():
    assert majority([2, 3, 3]) == 3
    assert majority([3, 1]) == 1
    assert majority([3, 3, 1, 1, 2]) == 1
    assert majority([None, 2, None]) == 2
    assert majority([None, None]) is None


def test_prompt_fill_keeps_latex_braces():
    template = "Query: {query}\nPassage: {passage}\nkeep {this} and \\frac{a}{b}"
    filled = prompt_fill(template, {"query": "What is $\\frac{1}{3}$?", "passage": "{passage} as text"})
    assert filled == "Query: What is $\\frac{1}{3}$?\nPassage: {passage} as text\nkeep {this} and \\frac{a}{b}"
    assert template_fields(template) == ["query", "passage"]


def test_html_becomes_text_with_its_latex():
    html = ('<p>What is <span class="math-container" id="3">$\\int_0^1 x^2 &lt; 1$</span>?</p>'
            '<script>alert(1)</script><ul><li>one</li><li>two &amp; three</li></ul><img src="x" alt="a plot">')
    assert html_text(html) == "What is $\\int_0^1 x^2 < 1$?\n\none\n\ntwo & three\n\n[image: a plot]"
