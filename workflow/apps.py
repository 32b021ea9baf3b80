from django.apps import AppConfig


class WorkflowConfig(AppConfig):
    """The surfaces above the domains: the organizer's pages and API over campaigns, runs, topics and pools, LLM
    judging as a job, the pool and undo commands and the demo loader. They orchestrate pooling and assessor; neither
    imports this app."""

    name = "workflow"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from workflow import tasks  # noqa: F401 (registers LLM judging as a kind of job)
