from django.db import migrations, models

# A run whose every row's rank equals its position in its topic's list (ordered by rank, then item id).
_RANKS_ARE_POSITIONS = (
    "SELECT NOT EXISTS (SELECT 1 FROM (SELECT rank, ROW_NUMBER() OVER (PARTITION BY topic_id ORDER BY rank, item_id) "
    "AS n FROM pooling_runentry WHERE run_id = %s) x WHERE x.rank <> x.n)")


def mark_runs(apps, schema_editor):
    """Runs ingested before the flag existed get it from their stored rows, as the reader would have set it."""
    Run = apps.get_model("pooling", "Run")
    connection = schema_editor.connection
    with connection.cursor() as cursor:
        for run_pk in Run.objects.filter(row_count__gt=0).values_list("pk", flat=True):
            cursor.execute(_RANKS_ARE_POSITIONS, [run_pk])
            if cursor.fetchone()[0]:
                Run.objects.filter(pk=run_pk).update(ranks_are_positions=True)


class Migration(migrations.Migration):

    dependencies = [
        ("pooling", "0003_pool_build_job"),
    ]

    operations = [
        migrations.AddField(
            model_name="run",
            name="ranks_are_positions",
            field=models.BooleanField(
                default=False,
                help_text="every topic's ranks are 1, 2, 3, ... (no gap, tie or disorder): a topic's first k rows "
                          "are its rows of rank <= k, which pooling reads without numbering the rows"),
        ),
        migrations.RunPython(mark_runs, migrations.RunPython.noop),
    ]
