from django.db import migrations, models


def latest_revisions_take_their_judgments_facets(apps, schema_editor):
    # Earlier revisions' facets were not kept: only each judgment's latest revision is known to hold its facets.
    Judgment = apps.get_model("assessor", "Judgment")
    JudgmentRevision = apps.get_model("assessor", "JudgmentRevision")
    facets = Judgment.objects.filter(pk=models.OuterRef("judgment_id")).values("facets")[:1]
    (JudgmentRevision.objects.filter(number=models.F("judgment__revision"), judgment__facets__isnull=False)
     .update(facets=models.Subquery(facets)))


class Migration(migrations.Migration):

    dependencies = [
        ('assessor', '0007_judgment_llm_suggestion'),
    ]

    operations = [
        migrations.AddField(
            model_name='judgmentrevision',
            name='facets',
            field=models.JSONField(blank=True, help_text='facet name -> option chosen at this submission', null=True),
        ),
        migrations.RunPython(latest_revisions_take_their_judgments_facets, migrations.RunPython.noop),
    ]
