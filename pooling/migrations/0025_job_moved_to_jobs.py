"""The pooling app's side of moving the Job rows to jobs: the state only, no table changes
(jobs/migrations/0001_from_pooling.py)."""

from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ('jobs', '0001_from_pooling'),
        ('pooling', '0024_run_suspect_matches'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(state_operations=[
            migrations.DeleteModel(
                name='Job',
            ),
        ]),
    ]
