# Issue 16: the judging page's submit keys (a resend under the same key changes nothing).

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('assessor', '0002_training_rounds'),
    ]

    operations = [
        migrations.CreateModel(
            name='SubmitReceipt',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('key', models.CharField(max_length=64)),
                ('item_id', models.CharField(max_length=64)),
                ('at', models.DateTimeField()),
                ('created', models.PositiveIntegerField(default=0)),
                ('revised', models.PositiveIntegerField(default=0)),
                ('unchanged', models.PositiveIntegerField(default=0)),
                ('complete', models.BooleanField(default=False)),
                ('assignment', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='assessor.assignment')),
            ],
            options={
                'constraints': [models.UniqueConstraint(fields=('assignment', 'key'), name='submit_receipt_unique')],
            },
        ),
    ]
