"""The judging app's side of moving training rounds and adjudications to agreement: the state only, no table
changes (agreement/migrations/0001_from_judging.py)."""

from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ('agreement', '0001_from_judging'),
        ('assessor', '0010_browser_submits_and_revisions'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(state_operations=[
            migrations.RemoveField(
                model_name='adjudicationrevision',
                name='adjudication',
            ),
            migrations.RemoveField(
                model_name='adjudicationrevision',
                name='by',
            ),
            migrations.RemoveField(
                model_name='goldjudgment',
                name='round',
            ),
            migrations.RemoveField(
                model_name='goldjudgment',
                name='topic',
            ),
            migrations.RemoveField(
                model_name='traininground',
                name='campaign',
            ),
            migrations.RemoveField(
                model_name='traininground',
                name='created_by',
            ),
            migrations.RemoveField(
                model_name='traininground',
                name='topics',
            ),
            migrations.DeleteModel(
                name='Adjudication',
            ),
            migrations.DeleteModel(
                name='AdjudicationRevision',
            ),
            migrations.DeleteModel(
                name='GoldJudgment',
            ),
            migrations.DeleteModel(
                name='TrainingRound',
            ),
        ]),
    ]
