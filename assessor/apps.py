from django.apps import AppConfig


class AssessorConfig(AppConfig):
    name = "assessor"
    verbose_name = "Assessment"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Pool rebuilds ask the judging app what has been judged; pooling never imports assessor.
        from pooling.selectors import SECONDS_PER_JUDGMENT_SOURCES
        from pooling.services.pools import JUDGED_ITEM_SOURCES
        from pooling.signals import campaign_deleting, demo_deleting, demo_loaded, pools_rebuilt

        from .demo import demo_assign, demo_delete
        from .progress import judging_time
        from .selectors import judged_items_of_campaign
        from .services import campaign_rows_delete, visits_recount

        if judged_items_of_campaign not in JUDGED_ITEM_SOURCES:
            JUDGED_ITEM_SOURCES.append(judged_items_of_campaign)
        # The pool planner's time per judgment, measured once judging has started.
        if judging_time not in SECONDS_PER_JUDGMENT_SOURCES:
            SECONDS_PER_JUDGMENT_SOURCES.append(judging_time)
        demo_loaded.connect(demo_assign, dispatch_uid="assessor-demo-assign")
        demo_deleting.connect(demo_delete, dispatch_uid="assessor-demo-delete")
        campaign_deleting.connect(campaign_rows_delete, dispatch_uid="assessor-campaign-rows-delete")
        pools_rebuilt.connect(lambda sender, campaign, **kw: visits_recount(campaign=campaign), weak=False,
                              dispatch_uid="assessor-visits-recount")
