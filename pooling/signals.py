"""Signals other apps listen to, so that pooling never imports them (the demo's assignments live in assessor)."""
from django.dispatch import Signal

# Sent by load_demo after the demo campaigns and accounts exist: campaigns={task: Campaign}, assessors=[User],
# say=callable(str) to add a line to the report.
demo_loaded = Signal()
# Sent by a forced pool_build, inside its transaction, once the new pools are written: campaign=Campaign.
pools_rebuilt = Signal()
# Sent by load_demo --reset before it deletes the demo campaigns: campaigns=[Campaign].
demo_deleting = Signal()
# Sent by campaign_delete, inside its transaction, before it deletes the campaign: campaign=Campaign. Receivers
# delete their rows of the campaign, and raise InputError if any is an assessor's judgment.
campaign_deleting = Signal()
