"""factory_boy factories for the models."""
import factory

from pooling.models import Campaign, Collection, Topic


class CollectionFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Collection
        django_get_or_create = ("name",)

    name = factory.Sequence(lambda n: f"collection-{n}")


class CampaignFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Campaign

    name = factory.Sequence(lambda n: f"campaign-{n}")
    task = Campaign.Task.ANSWERS
    collection = factory.SubFactory(CollectionFactory)
    primary_depth = 45
    alternate_depth = 20


class TopicFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Topic

    campaign = factory.SubFactory(CampaignFactory)
    topic_id = factory.Sequence(lambda n: f"A.{n + 1}")
    position = factory.Sequence(lambda n: n)
    title = factory.Faker("sentence")
