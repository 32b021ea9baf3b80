"""The order assessors see a topic's items in: shuffled, and the same shuffle every time for a seed and topic."""
from hypothesis import given
from hypothesis import strategies as st

from ir.pools.ids import seeded_rng
from ir.pools.order import display_order

ITEMS = [str(i) for i in range(1, 21)]


def test_the_same_seed_and_topic_show_items_in_the_same_order_again():
    assert display_order(ITEMS, seed=42, topic_id="A.301") == display_order(ITEMS, seed=42, topic_id="A.301")


def test_items_are_shuffled_rather_than_shown_in_id_or_rank_order():
    # 20! possible orders: landing on the sorted one is out of the question, and fixed by the seed anyway.
    assert display_order(ITEMS, seed=42, topic_id="A.301") != ITEMS


def test_another_topic_or_seed_gets_another_order():
    base = display_order(ITEMS, seed=42, topic_id="A.301")
    assert display_order(ITEMS, seed=42, topic_id="A.302") != base
    assert display_order(ITEMS, seed=43, topic_id="A.301") != base


def test_order_is_the_same_in_every_process_and_python_session():
    # random.Random hashes a str seed with SHA-512, so this is a constant; hash() of a str would change every run.
    assert display_order(["8", "7", "6", "5", "4", "3", "2", "1"], seed=1, topic_id="A.1") == \
        ["6", "4", "2", "1", "7", "5", "8", "3"]
    assert seeded_rng(42, "A.301").random() == seeded_rng("42", "A.301").random()


@given(st.lists(st.text(min_size=1, max_size=4), unique=True, max_size=30), st.integers(), st.text(max_size=6),
       st.randoms(use_true_random=False))
def test_display_order_is_a_permutation_independent_of_input_order(items, seed, topic, rnd):
    order = display_order(items, seed=seed, topic_id=topic)
    assert sorted(order) == sorted(items)
    shuffled = list(items)
    rnd.shuffle(shuffled)
    assert display_order(shuffled, seed=seed, topic_id=topic) == order
