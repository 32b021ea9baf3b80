"""Canary texts: the topic's own words stuffed in, an instruction planted; seeded."""
from ir.canaries import INSTRUCTION, canary_seed, canary_sources, planted, stuffed, topic_terms

TOPIC = "How do I integrate $x^2$ over an interval?\n\nI need the integral of $x^2$ explained with Riemann sums."
ITEM = "First paragraph about groups.\n\nSecond paragraph about rings."


def test_topic_terms_are_its_formulas_and_content_words_once():
    assert topic_terms(TOPIC) == ["$x^2$", "integrate", "interval", "need", "integral", "explained", "Riemann",
                                  "sums"]
    assert topic_terms(TOPIC, limit=2) == ["$x^2$", "integrate"]


def test_stuffed_keeps_the_item_and_adds_the_topic_words():
    terms = topic_terms(TOPIC)
    text = stuffed(ITEM, terms, seed=7)
    assert "First paragraph about groups." in text and "Second paragraph about rings." in text
    assert all(text.count(term) >= 2 for term in terms)
    assert stuffed(ITEM, terms, seed=7) == text
    assert any(stuffed(ITEM, terms, seed=seed) != text for seed in range(8, 20))


def test_planted_instruction_is_a_paragraph_of_its_own():
    text = planted(ITEM, seed=3)
    assert INSTRUCTION in text.split("\n\n")
    assert text.replace(INSTRUCTION, "").replace("\n\n\n\n", "\n\n").strip() == ITEM
    assert {planted(ITEM, seed=seed).split("\n\n").index(INSTRUCTION) for seed in range(30)} == {0, 1, 2}


def test_sources_are_a_seeded_sample_whatever_the_order():
    items = [str(n) for n in range(20)]
    chosen = canary_sources(items, 3, seed=5)
    assert len(chosen) == 3 and set(chosen) <= set(items)
    assert canary_sources(list(reversed(items)), 3, seed=5) == chosen
    assert canary_sources(["b", "a"], 3, seed=5) == ["a", "b"]
    assert canary_seed(1, "A.1", "10", "stuffed") == canary_seed(1, "A.1", "10", "stuffed")
    assert canary_seed(1, "A.1", "10", "stuffed") != canary_seed(1, "A.1", "10", "instruction")
