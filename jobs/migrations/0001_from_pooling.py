"""The Job rows move from the pooling app to jobs: the state only, the table keeps its name (db_table), so no row
moves (as agreement/migrations/0001_from_judging.py)."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):

    initial = True

    dependencies = [
        ('pooling', '0024_run_suspect_matches'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(state_operations=[
                migrations.CreateModel(
                    name='Job',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('kind', models.CharField(choices=[('collection_ingest', 'collection ingest'), ('topics_ingest', 'topics ingest'), ('run_ingest', 'run ingest'), ('pool_build', 'pool build'), ('campaign_delete', 'campaign delete'), ('judgments_import', 'judgments import'), ('llm_judge', 'LLM judging')], max_length=32)),
                        ('status', models.CharField(choices=[('queued', 'Queued'), ('running', 'Running'), ('done', 'Done'), ('failed', 'Failed'), ('cancelled', 'Cancelled')], default='queued', max_length=10)),
                        ('progress', models.FloatField(default=0.0, help_text='0 to 1, written while running')),
                        ('message', models.TextField(blank=True)),
                        ('problems', models.JSONField(blank=True, default=list)),
                        ('warnings', models.JSONField(blank=True, default=list)),
                        ('params', models.JSONField(blank=True, default=dict)),
                        ('result', models.JSONField(blank=True, default=dict)),
                        ('created_at', models.DateTimeField(auto_now_add=True)),
                        ('started_at', models.DateTimeField(blank=True, null=True)),
                        ('finished_at', models.DateTimeField(blank=True, null=True)),
                        ('attempts', models.PositiveSmallIntegerField(default=0)),
                        ('cancel_requested', models.BooleanField(default=False)),
                        ('sent_at', models.DateTimeField(blank=True, null=True)),
                        ('heartbeat_at', models.DateTimeField(blank=True, null=True)),
                        ('claim', models.CharField(blank=True, max_length=32)),
                        ('campaign', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.CASCADE, related_name='jobs', to='pooling.campaign')),
                        ('collection', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.CASCADE, related_name='jobs', to='pooling.collection')),
                        ('created_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, to=settings.AUTH_USER_MODEL)),
                    ],
                    options={
                        'db_table': 'pooling_job',
                        'ordering': ['-created_at', '-id'],
                        'indexes': [models.Index(fields=['status', 'created_at'], name='job_status_created')],
                    },
                ),
        ]),
    ]
