"""A collection whose formula index names posts it lacks is warned about at ingest, and the warning stays with it
on the collections page until the posts are loaded (issue 13.11)."""
import pytest

from pooling import services
from pooling.models import Collection

pytestmark = pytest.mark.django_db

POSTS = ('<posts>\n<row Id="1" PostTypeId="1" Title="q" Body="&lt;p&gt;q&lt;/p&gt;" />\n'
         '<row Id="10" PostTypeId="2" ParentId="1" Body="&lt;p&gt;a&lt;/p&gt;" />\n</posts>\n')
MORE_POSTS = ('<posts>\n<row Id="11" PostTypeId="2" ParentId="1" Body="&lt;p&gt;b&lt;/p&gt;" />\n'
              '<row Id="12" PostTypeId="2" ParentId="1" Body="&lt;p&gt;c&lt;/p&gt;" />\n</posts>\n')
INDEX = ("id\tpost_id\tthread_id\ttype\tcomment_id\told_visual_id\tvisual_id\tissue\tformula\n"
         "1\t1\t1\tquestion\t\t\t100\t\tx\n2\t10\t1\tanswer\t\t\t100\t\tx\n3\t11\t1\tanswer\t\t\t200\t\ty\n"
         "4\t11\t1\tanswer\t\t\t200\t\ty\n5\t12\t1\tanswer\t\t\t300\t\tz\n")


def load(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return services.collection_ingest(collection_name="mse", paths=[path], names=[name])


def test_formulas_of_missing_posts_are_a_warning_kept_until_the_posts_come(tmp_path, client, organizer):
    load(tmp_path, "Posts.xml", POSTS)
    result = load(tmp_path, "latex_representation_v3.tsv", INDEX)
    warning = ("the formula index names 2 posts that the collection lacks (11, 12): their formulas have no post to "
               "be shown in; load the posts (Posts.xml) that hold them")
    assert result.warnings == [warning]
    assert Collection.objects.get(name="mse").warnings == [warning]
    client.force_login(organizer)
    page = client.get("/collections/").content.decode()
    assert 'class="collection-warnings"' in page and "names 2 posts that the collection lacks (11, 12)" in page

    assert load(tmp_path, "Posts-more.xml", MORE_POSTS).warnings == []
    assert Collection.objects.get(name="mse").warnings == []
    assert "collection-warnings" not in client.get("/collections/").content.decode()


def test_a_complete_collection_has_no_warning(tmp_path):
    load(tmp_path, "Posts.xml", POSTS.replace("</posts>", MORE_POSTS.split("\n", 1)[1].rsplit("</posts>", 1)[0]
                                              + "</posts>"))
    assert load(tmp_path, "latex_representation_v3.tsv", INDEX).warnings == []
    assert Collection.objects.get(name="mse").warnings == []


def test_many_missing_posts_are_counted_with_a_few_examples(tmp_path):
    rows = "".join(f"{n}\t{1000 + n}\t1\tanswer\t\t\t{n}\t\tx\n" for n in range(1, 9))
    result = load(tmp_path, "latex_representation_v3.tsv", INDEX.split("\n", 1)[0] + "\n" + rows)
    assert result.warnings == [
        "the formula index names 8 posts that the collection lacks (1001, 1002, 1003, 1004, 1005 and 3 more): their "
        "formulas have no post to be shown in; load the posts (Posts.xml) that hold them"]
