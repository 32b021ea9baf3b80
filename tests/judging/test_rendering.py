"""The one sanitizer and its link policy (SPEC 5.2), without a database."""
import pytest

from judging.rendering import highlight, internal_post_id, sanitize


def clean(html: str, new_tab: bool = False) -> str:
    return sanitize(html, post_url=lambda post_id: f"/posts/{post_id}/", new_tab=new_tab)


@pytest.mark.parametrize("href, post_id", [
    ("https://math.stackexchange.com/questions/123/some-title", "123"),
    ("http://math.stackexchange.com/questions/123", "123"),
    ("//math.stackexchange.com/q/45", "45"),
    ("https://math.stackexchange.com/a/678", "678"),
    ("https://math.stackexchange.com/questions/12/title/34#34", "34"),
    ("/questions/9/x", "9"),
    ("/a/10", "10"),
    ("https://stats.stackexchange.com/questions/123", None),
    ("https://math.stackexchange.com/users/5/someone", None),
    ("https://evil.example/questions/123", None),
    ("https://math.stackexchange.com.evil.example/q/1", None),
])
def test_links_into_the_collection_are_recognized(href, post_id):
    assert internal_post_id(href) == post_id


def test_internal_links_point_to_the_local_thread_view():
    assert clean('<a href="https://math.stackexchange.com/q/45">q</a>') == (
        '<a href="/posts/45/" class="internal-link">q</a>')
    assert 'target="_blank" rel="noopener"' in clean('<a href="/a/3">a</a>', new_tab=True)


def test_external_links_become_marked_plain_text():
    out = clean('<p><a href="https://en.wikipedia.org/wiki/X">Wiki <b>page</b></a> after</p>')
    assert out == ('<p><span class="external-link" title="External link, not followed: '
                   'https://en.wikipedia.org/wiki/X">Wiki <b>page</b></span> after</p>')


def test_images_are_never_loaded_and_show_their_alt_text():
    assert clean('<img src="https://i.stack.imgur.com/x.png" alt="a graph">') == (
        '<span class="image-alt" title="Images from other sites are not loaded">[a graph]</span>')


@pytest.mark.parametrize("html", [
    '<img src=x onerror="alert(1)">',
    "<script>alert(1)</script>",
    '<a href="javascript:alert(1)">x</a>',
    '<svg onload="alert(1)"></svg>',
    '<iframe src="https://evil.example"></iframe>',
    '<p style="background:url(javascript:alert(1))" onclick="alert(1)">x</p>',
    '<span class="math-container" id="1" onmouseover="alert(1)">$x$</span>',
    '<a href="/q/1" onclick="alert(1)">x</a>',
])
def test_nothing_from_the_collection_can_run_script(html):
    out = clean(html).lower()
    for bad in ("<script", "onerror", "onload", "onclick", "onmouseover", "javascript:", "<iframe", "<svg",
                "style="):
        assert bad not in out, out


def test_script_and_style_contents_are_not_shown_as_text():
    assert clean("<p>a<script>window.x = 1</script>b<STYLE>p {}</STYLE>c</p>") == "<p>abc</p>"


def test_formula_spans_keep_their_id_as_data_and_can_be_highlighted():
    out = clean('<span class="math-container" id="q_7">$x$</span> <span class="math-container" id="8">$y$</span>')
    assert out == ('<span class="math-container" data-formula-id="q_7">$x$</span> '
                   '<span class="math-container" data-formula-id="8">$y$</span>')
    assert highlight(out, ["8"]) == ('<span class="math-container" data-formula-id="q_7">$x$</span> '
                                     '<span class="math-container hl" data-formula-id="8">$y$</span>')
