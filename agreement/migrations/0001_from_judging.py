"""Training rounds, gold judgments and adjudications move from the judging app (label assessor) to agreement:
the state only, the tables keep their names (db_table), so no row moves."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):

    initial = True

    dependencies = [
        ('assessor', '0010_browser_submits_and_revisions'),
        ('pooling', '0024_run_suspect_matches'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(state_operations=[
            migrations.CreateModel(
                name='Adjudication',
                fields=[
                    ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                    ('kind', models.CharField(choices=[('training', 'Training'), ('dual', 'Dual')], max_length=20)),
                    ('round', models.PositiveIntegerField(default=0, help_text='training round (1, 2, ...); 0 for the dual assessment')),
                    ('item_id', models.CharField(help_text='post id (answers) or visual id (formulas)', max_length=64)),
                    ('formula_id', models.CharField(blank=True, help_text='formulas: the judged instance', max_length=64)),
                    ('grade', models.CharField(choices=[('3', 'High'), ('2', 'Medium'), ('1', 'Low'), ('0', 'Not relevant'), ('SF', 'System failure'), ('DK', 'Do not know')], max_length=2)),
                    ('note', models.TextField(blank=True)),
                    ('official', models.BooleanField(default=False, help_text='dual assessment: the grade of the official qrels')),
                    ('revision', models.PositiveIntegerField(default=1)),
                    ('at', models.DateTimeField(help_text='latest revision')),
                    ('by', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='+', to=settings.AUTH_USER_MODEL)),
                    ('campaign', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='adjudications', to='pooling.campaign')),
                    ('topic', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='+', to='pooling.topic')),
                ],
                options={
                    'db_table': 'assessor_adjudication',
                    'ordering': ['campaign', 'kind', 'round', 'topic__position', 'item_id', 'formula_id'],
                },
            ),
            migrations.CreateModel(
                name='AdjudicationRevision',
                fields=[
                    ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                    ('number', models.PositiveIntegerField()),
                    ('at', models.DateTimeField()),
                    ('grade', models.CharField(choices=[('3', 'High'), ('2', 'Medium'), ('1', 'Low'), ('0', 'Not relevant'), ('SF', 'System failure'), ('DK', 'Do not know')], max_length=2)),
                    ('note', models.TextField(blank=True)),
                    ('official', models.BooleanField(default=False)),
                    ('adjudication', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='revisions', to='agreement.adjudication')),
                    ('by', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='+', to=settings.AUTH_USER_MODEL)),
                ],
                options={
                    'db_table': 'assessor_adjudicationrevision',
                    'ordering': ['adjudication', 'number'],
                },
            ),
            migrations.CreateModel(
                name='TrainingRound',
                fields=[
                    ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                    ('number', models.PositiveIntegerField()),
                    ('gold_name', models.CharField(blank=True, help_text='file name of the gold qrels, if any', max_length=200)),
                    ('created_at', models.DateTimeField(auto_now_add=True)),
                    ('campaign', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='training_rounds', to='pooling.campaign')),
                    ('created_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL)),
                    ('topics', models.ManyToManyField(db_table='assessor_traininground_topics', related_name='+', to='pooling.topic')),
                ],
                options={
                    'db_table': 'assessor_traininground',
                    'ordering': ['campaign', 'number'],
                },
            ),
            migrations.CreateModel(
                name='GoldJudgment',
                fields=[
                    ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                    ('item_id', models.CharField(max_length=64)),
                    ('grade', models.PositiveSmallIntegerField()),
                    ('topic', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='pooling.topic')),
                    ('round', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='gold', to='agreement.traininground')),
                ],
                options={
                    'db_table': 'assessor_goldjudgment',
                    'ordering': ['round', 'topic', 'item_id'],
                },
            ),
            migrations.AddConstraint(
                model_name='adjudication',
                constraint=models.UniqueConstraint(fields=('campaign', 'kind', 'round', 'topic', 'item_id', 'formula_id'), name='adjudication_unique'),
            ),
            migrations.AddConstraint(
                model_name='adjudicationrevision',
                constraint=models.UniqueConstraint(fields=('adjudication', 'number'), name='adjudication_revision_unique'),
            ),
            migrations.AddConstraint(
                model_name='traininground',
                constraint=models.UniqueConstraint(fields=('campaign', 'number'), name='training_round_unique'),
            ),
            migrations.AddConstraint(
                model_name='goldjudgment',
                constraint=models.UniqueConstraint(fields=('round', 'topic', 'item_id'), name='gold_unique'),
            ),
        ]),
    ]
