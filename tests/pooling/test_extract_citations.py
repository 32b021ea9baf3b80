"""extract_citations (issue 25): candidates from the links of accepted answers, in a small Stack Exchange dump."""
from html import escape

import pytest

from ir.formats.candidates import Candidate, read_candidates
from tests.commands import command_output, rejected

pytestmark = pytest.mark.django_db

# Question 1 (asked by user 5) accepted answer 2, which links to questions 30 and 31 twice and elsewhere once;
# the asker commented twice on it, another user once. Question 3 has no accepted answer; question 40 is not in the
# dump at all.
ANSWER = ('<p>See <a href="https://math.stackexchange.com/questions/30/induction">this</a>, '
          "<a href='https://math.stackexchange.com/q/31'>that</a>, "
          '<a href="https://math.stackexchange.com/questions/30">again</a> and '
          '<a href="https://en.wikipedia.org/wiki/Square">wiki</a>.</p>')
OTHER = '<a href="https://math.stackexchange.com/questions/32">x</a>'
POSTS = f"""<?xml version="1.0" encoding="utf-8"?>
<posts>
  <row Id="1" PostTypeId="1" AcceptedAnswerId="2" OwnerUserId="5" Title="Sum of squares" Body="Why?"/>
  <row Id="2" PostTypeId="2" ParentId="1" OwnerUserId="6" Body="{escape(ANSWER)}"/>
  <row Id="3" PostTypeId="1" OwnerUserId="5" Title="Open" Body="?"/>
  <row Id="4" PostTypeId="2" ParentId="3" Body="{escape(OTHER)}"/>
</posts>
"""
COMMENTS = """<?xml version="1.0" encoding="utf-8"?>
<comments>
  <row Id="11" PostId="2" UserId="5" Text="Thanks, the induction proof" CreationDate="2020-01-01T10:00:00.000"/>
  <row Id="12" PostId="2" UserId="7" Text="I disagree" CreationDate="2020-01-01T11:00:00.000"/>
  <row Id="13" PostId="2" UserId="5" Text="settled it." CreationDate="2020-01-02T10:00:00.000"/>
</comments>
"""
PATTERN = r"math\.stackexchange\.com/(?:questions|q)/(?P<id>[0-9]+)"


def test_accepted_answers_links_become_candidates_with_the_askers_comments(tmp_path):
    (tmp_path / "Posts.xml").write_text(POSTS, encoding="utf-8")
    (tmp_path / "Comments.xml").write_text(COMMENTS, encoding="utf-8")
    command_output("ingest_collection", "--collection", "mse", str(tmp_path / "Posts.xml"),
                   str(tmp_path / "Comments.xml"))
    topics = tmp_path / "topics.tsv"
    topics.write_text("A.1\t1\nA.2\t3\nA.3\t40\n", encoding="utf-8")
    out, _ = command_output("extract_citations", "--collection", "mse", "--topics", str(topics),
                            "--link-pattern", PATTERN)
    assert out.splitlines() == [
        "A.1\t30\tcited-in-accepted-answer\tThanks, the induction proof settled it.",
        "A.1\t31\tcited-in-accepted-answer\tThanks, the induction proof settled it.",
    ]
    _, err = command_output("extract_citations", "--collection", "mse", "--topics", str(topics),
                            "--link-pattern", PATTERN, "-o", str(tmp_path / "c.tsv"))
    assert "2 candidates written" in err
    assert read_candidates(tmp_path / "c.tsv")[0] == Candidate(
        "A.1", "30", "cited-in-accepted-answer", "Thanks, the induction proof settled it.")


def test_a_pattern_without_a_group_or_an_unknown_collection_is_refused(tmp_path):
    topics = tmp_path / "topics.tsv"
    topics.write_text("A.1\t1\n", encoding="utf-8")
    assert "has no group" in rejected("extract_citations", "--collection", "mse", "--topics", str(topics),
                                      "--link-pattern", "questions/[0-9]+")[0]
    assert rejected("extract_citations", "--collection", "nope", "--topics", str(topics),
                    "--link-pattern", PATTERN) == ["there is no collection named 'nope'"]
