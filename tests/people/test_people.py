"""The people page: accounts made with a password shown once (and kept nowhere), deactivated, reset; an assessor
changes their own password; only organizers reach any of it."""
import pickle
import re

import pytest
from django.contrib.auth.models import Group
from django.contrib.sessions.models import Session
from django.core.cache import caches
from rest_framework.authtoken.models import Token

pytestmark = pytest.mark.django_db


def shown_password(response) -> str:
    found = re.search(r'<code id="new-password">([^<]+)</code>', response.content.decode())
    assert found, response.content.decode()
    return found.group(1)


def assert_kept_nowhere(client, password: str) -> None:
    """Not in any session (database or cache), not in any cache entry, not in any message, not on the next page."""
    for session in Session.objects.all():
        assert password not in repr(session.get_decoded())
    for name in caches:
        store = getattr(caches[name], "_cache", {})  # the local-memory cache of the test settings
        assert store is not None
        for value in store.values():
            raw = value if isinstance(value, bytes) else pickle.dumps(value)
            assert password.encode() not in raw
    follow = client.get("/people/")
    assert password not in follow.content.decode()
    assert not [m for m in follow.context["messages"] if password in str(m)]


def test_an_organizer_creates_an_account_and_sees_its_password_once(client, organizer, django_user_model):
    client.force_login(organizer)
    response = client.post("/people/", {"username": "cleo", "role": "assessor"})
    assert response.status_code == 200  # the response itself, not a redirect to a page that would read it back
    password = shown_password(response)
    assert "no-store" in response["Cache-Control"]
    assert_kept_nowhere(client, password)
    cleo = django_user_model.objects.get(username="cleo")
    assert cleo.check_password(password) and not cleo.groups.exists()
    assert client.login(username="cleo", password=password)


def test_the_assignments_page_account_form_keeps_the_password_nowhere(client, organizer, answers):
    client.force_login(organizer)
    response = client.post(f"/campaigns/{answers.pk}/assignments/", {"action": "account", "username": "dora"})
    assert response.status_code == 200
    password = shown_password(response)
    assert "no-store" in response["Cache-Control"]
    assert_kept_nowhere(client, password)
    assert "dora" in client.get(f"/campaigns/{answers.pk}/assignments/").content.decode()


def test_an_organizer_account_can_be_made_and_lists_under_organizers(client, organizer, django_user_model):
    client.force_login(organizer)
    shown_password(client.post("/people/", {"username": "otto", "role": "organizer"}))
    assert django_user_model.objects.get(username="otto").groups.filter(name="organizers").exists()
    page = client.get("/people/")
    assert [p.account.username for p in page.context["organizers"]] == ["olga", "otto"]


def test_a_taken_or_bad_name_is_refused_and_nothing_is_made(client, organizer, assessor_user, django_user_model):
    client.force_login(organizer)
    taken = client.post("/people/", {"username": "ada", "role": "assessor"})
    assert "an account named ada exists already" in taken.content.decode()
    bad = client.post("/people/", {"username": "no spaces", "role": "assessor"})
    assert "cannot be an account name" in bad.content.decode()
    assert django_user_model.objects.count() == 2


def test_a_deactivated_account_cannot_log_in_and_is_signed_out(client, organizer, assessor_user):
    other = type(client)()
    other.force_login(assessor_user)
    assert other.get("/assess/").status_code == 200
    client.force_login(organizer)
    confirm = client.get(f"/people/{assessor_user.pk}/deactivate/")
    assert confirm.status_code == 200 and "Deactivate ada?" in confirm.content.decode()
    assert client.post(f"/people/{assessor_user.pk}/deactivate/").status_code == 302
    assessor_user.refresh_from_db()
    assert not assessor_user.is_active
    assert other.get("/assess/").status_code == 302  # the open session ends
    refused = type(client)().post("/login/", {"username": "ada", "password": "assessor-pass-1"})
    assert refused.status_code == 200 and "did not match" in refused.content.decode()
    client.post(f"/people/{assessor_user.pk}/reactivate/")
    assert type(client)().post("/login/", {"username": "ada", "password": "assessor-pass-1"}).status_code == 302


def test_a_reset_gives_a_working_password_and_stops_the_old_one(client, organizer, assessor_user):
    Token.objects.create(user=assessor_user)
    client.force_login(organizer)
    assert "Reset the password of ada?" in client.get(f"/people/{assessor_user.pk}/reset/").content.decode()
    response = client.post(f"/people/{assessor_user.pk}/reset/")
    password = shown_password(response)
    assert_kept_nowhere(client, password)
    fresh = type(client)()
    assert not fresh.login(username="ada", password="assessor-pass-1")
    assert fresh.login(username="ada", password=password)
    assert not Token.objects.filter(user=assessor_user).exists()


def test_an_organizer_cannot_lock_themselves_out_or_take_over_a_superuser(client, organizer, django_user_model):
    root = django_user_model.objects.create_superuser("root", password="root-pass-1")
    client.force_login(organizer)
    response = client.post(f"/people/{organizer.pk}/deactivate/", follow=True)
    assert "this is your own account" in response.content.decode()
    response = client.post(f"/people/{root.pk}/reset/", follow=True)
    assert "only a superuser may change that account" in response.content.decode()
    organizer.refresh_from_db()
    root.refresh_from_db()
    assert organizer.is_active and root.check_password("root-pass-1")


@pytest.mark.parametrize("action", ["deactivate", "reactivate", "reset", "unlock", "revoke"])
def test_an_organizer_may_do_nothing_to_a_superusers_account(client, organizer, django_user_model, action):
    root = django_user_model.objects.create_superuser("root", password="root-pass-1")
    token = Token.objects.create(user=root)
    client.force_login(organizer)
    response = client.post(f"/people/{root.pk}/{action}/", follow=True)
    assert "root is a superuser: only a superuser may change that account" in response.content.decode()
    root.refresh_from_db()
    assert root.is_active and root.check_password("root-pass-1") and Token.objects.filter(key=token.key).exists()


def test_an_assessor_changes_their_own_password(client, assessor_user):
    client.force_login(assessor_user)
    page = client.get("/password/")
    assert page.status_code == 200 and 'href="/password/"' in page.content.decode()  # linked from the navigation
    wrong = client.post("/password/", {"old_password": "nope", "new_password1": "a-new-pass-2024",
                                       "new_password2": "a-new-pass-2024"})
    assert wrong.status_code == 200 and "incorrectly" in wrong.content.decode()
    done = client.post("/password/", {"old_password": "assessor-pass-1", "new_password1": "a-new-pass-2024",
                                      "new_password2": "a-new-pass-2024"}, follow=True)
    assert done.redirect_chain[-1][0] == "/password/done/"
    assert "Password changed" in done.content.decode()
    assert client.get("/assess/").status_code == 200  # still signed in here
    assert type(client)().login(username="ada", password="a-new-pass-2024")


PEOPLE_URLS = ["/people/", "/people/{pk}/deactivate/", "/people/{pk}/reactivate/", "/people/{pk}/reset/",
               "/people/{pk}/revoke/", "/people/{pk}/unlock/"]


@pytest.mark.parametrize("url", PEOPLE_URLS)
def test_only_organizers_reach_the_people_pages(client, assessor_user, organizer, url):
    url = url.format(pk=organizer.pk)
    assert client.get(url).status_code == 302 and client.post(url).status_code == 302  # anonymous: to the login
    client.force_login(assessor_user)
    assert client.get(url).status_code == 403
    assert client.post(url, {"username": "x", "role": "organizer"}).status_code == 403
    organizer.refresh_from_db()
    assert organizer.is_active and organizer.check_password("organizer-pass-1")
    assert not Group.objects.get(name="organizers").user_set.filter(username="x").exists()


def test_the_navigation_links_people_and_api_docs_for_organizers_only(client, organizer, assessor_user):
    client.force_login(organizer)
    page = client.get("/campaigns/").content.decode()
    assert 'href="/people/"' in page and 'href="/api/docs/"' in page
    client.force_login(assessor_user)
    page = client.get("/assess/").content.decode()
    assert 'href="/people/"' not in page and 'href="/api/docs/"' not in page
