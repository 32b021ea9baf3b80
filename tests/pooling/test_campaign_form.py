"""The new-campaign form (issue 13.12): a collection is picked from the list; creating one is its own choice;
Task 2's fields are ignored for Task 1."""
import pytest

from pooling.forms import CampaignForm
from pooling.models import Campaign, Collection

pytestmark = pytest.mark.django_db


def post(client, **fields):
    return client.post("/campaigns/", {"name": "c", "task": "answers", **fields})


def test_an_existing_collection_is_picked_from_the_list(client, organizer):
    Collection.objects.create(name="arqmath")
    client.force_login(organizer)
    page = client.get("/campaigns/").content.decode()
    assert '<option value="arqmath">arqmath</option>' in page and "Create a new collection…" in page
    assert post(client, collection="arqmath").status_code == 302
    assert Campaign.objects.get(name="c").collection.name == "arqmath"
    assert Collection.objects.count() == 1


def test_a_name_not_in_the_list_creates_nothing_unless_new_is_chosen(client, organizer):
    client.force_login(organizer)
    response = post(client, collection="typo")
    assert response.status_code == 200 and "Select a valid choice" in response.content.decode()
    response = post(client, new_collection="mse")
    assert "choose “Create a new collection”" in response.content.decode()
    assert not Campaign.objects.exists() and not Collection.objects.exists()
    assert post(client, collection="+new", new_collection="mse").status_code == 302
    assert Campaign.objects.get(name="c").collection.name == "mse"


def test_creating_a_collection_that_exists_asks_to_pick_it(db):
    Collection.objects.create(name="mse")
    form = CampaignForm({"name": "c", "task": "answers", "collection": "+new", "new_collection": "mse"})
    assert not form.is_valid()
    assert form.errors["new_collection"] == ["a collection named 'mse' exists already: pick it from the list"]
    assert not CampaignForm({"name": "c", "task": "answers", "collection": "+new"}).is_valid()


def test_task2_fields_are_ignored_for_task1(db):
    form = CampaignForm({"name": "c", "task": "answers", "instances": "3", "selection": "thread-spread"})
    assert form.is_valid(), form.errors
    assert form.cleaned_data["instances"] is None and form.cleaned_data["selection"] is None
    form = CampaignForm({"name": "c", "task": "formulas", "instances": "3"})
    assert form.is_valid() and form.cleaned_data["instances"] == 3
