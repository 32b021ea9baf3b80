"""A campaign's scores recompute is a Job row now (a scores_refresh job, evaluation/tasks.py): its claim table goes."""

from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ('evaluation', '0003_edition_qrels'),
    ]

    operations = [
        migrations.DeleteModel(
            name='ScoreRefresh',
        ),
    ]
