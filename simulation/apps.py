from django.apps import AppConfig


class SimulationConfig(AppConfig):
    name = "simulation"
    verbose_name = "Judging simulation and budget planning"

    def ready(self) -> None:
        from simulation import tasks  # noqa: F401 (registers the judging simulation's kind of job)
