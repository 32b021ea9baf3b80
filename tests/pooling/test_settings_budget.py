"""The settings page takes a budget away with 0 or an empty field, as docs/pooling.md ("Budgets") says and as the API
and edit_campaign do (pooling.services.NO_BUDGET): a walkthrough found the page refusing 0."""
import pytest

from pooling.models import Campaign
from tests.commands import command_output

pytestmark = pytest.mark.django_db


def _form(campaign: Campaign, **budgets: str) -> dict[str, str]:
    return {"name": campaign.name, "primary_depth": str(campaign.primary_depth),
            "alternate_depth": str(campaign.alternate_depth), "seed": str(campaign.seed),
            "max_depth": str(campaign.max_depth), "collection": "", **budgets}


@pytest.mark.parametrize("given", ["0", "", "0.0"])
def test_a_budget_of_0_or_empty_on_the_settings_page_takes_the_budget_away(client, organizer, answers, given):
    Campaign.objects.filter(pk=answers.pk).update(topic_budget=40, hours_budget=2.5)
    client.force_login(organizer)
    answer = client.post(f"/campaigns/{answers.pk}/settings/",
                         _form(answers, topic_budget=given if given != "0.0" else "0", hours_budget=given))
    assert answer.status_code == 302, answer.content.decode()
    campaign = Campaign.objects.get(pk=answers.pk)
    assert (campaign.topic_budget, campaign.hours_budget) == (None, None)


def test_the_page_and_the_command_agree_on_budgets(client, organizer, answers):
    client.force_login(organizer)
    client.post(f"/campaigns/{answers.pk}/settings/", _form(answers, topic_budget="30", hours_budget="1.5"))
    campaign = Campaign.objects.get(pk=answers.pk)
    assert (campaign.topic_budget, campaign.hours_budget) == (30, 1.5)
    command_output("edit_campaign", answers.name, "--topic-budget", "0", "--hours-budget", "0")
    campaign = Campaign.objects.get(pk=answers.pk)
    assert (campaign.topic_budget, campaign.hours_budget) == (None, None)


@pytest.mark.parametrize(("field", "value", "message"), [
    ("topic_budget", "-1", "Ensure this value is greater than or equal to 0."),
    ("hours_budget", "0.001", "Ensure this value is greater than or equal to 0.01."),
])
def test_a_budget_below_the_smallest_is_refused_with_its_message(client, organizer, answers, field, value, message):
    client.force_login(organizer)
    answer = client.post(f"/campaigns/{answers.pk}/settings/", _form(answers, **{field: value}))
    assert message in answer.content.decode()
    assert getattr(Campaign.objects.get(pk=answers.pk), field) is None
