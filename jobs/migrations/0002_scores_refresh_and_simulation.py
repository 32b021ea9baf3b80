"""Two more kinds of job: the leaderboard's scores refresh and the planner's judging simulation (evaluation/tasks.py), with
at most one pending refresh per campaign kept by the database."""

from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('jobs', '0001_from_pooling'),
        ('pooling', '0025_job_moved_to_jobs'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AlterField(
            model_name='job',
            name='kind',
            field=models.CharField(choices=[('collection_ingest', 'collection ingest'), ('topics_ingest', 'topics ingest'), ('run_ingest', 'run ingest'), ('pool_build', 'pool build'), ('campaign_delete', 'campaign delete'), ('judgments_import', 'judgments import'), ('llm_judge', 'LLM judging'), ('scores_refresh', 'scores refresh'), ('judging_simulation', 'judging simulation')], max_length=32),
        ),
        migrations.AddConstraint(
            model_name='job',
            constraint=models.UniqueConstraint(condition=models.Q(('kind', 'scores_refresh'), ('status__in', ['queued', 'running'])), fields=('campaign', 'kind'), name='job_one_pending_scores_refresh'),
        ),
    ]
