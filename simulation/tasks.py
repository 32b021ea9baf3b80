"""The judging simulation as a kind of job (jobs/registry.py): the planner's judging-order curves, replayed by
simulation.services.simulate_campaign on an earlier edition's qrels."""
from __future__ import annotations

from dataclasses import asdict

from core.words import counted
from jobs.models import Job
from jobs.registry import Progress, job_campaign, register
from simulation import services as simulation
from simulation.services import JudgingSimulationParams


def _judging_simulation(job: Job, p: JudgingSimulationParams, progress: Progress) -> tuple[dict, list[str]]:
    from ir.budget_simulation import UNCERTAIN  # numpy: loaded when a budget is replayed, not with the app

    campaign = job_campaign(job)
    results = simulation.simulate_campaign(campaign=campaign, qrels=p.qrels, **p.replay())
    budget = [] if not p.model else [asdict(row) for row in simulation.budget_campaign(
        campaign=campaign, qrels=p.qrels, model=p.model, policies=[UNCERTAIN, *p.policies], shares=p.shares,
        seed=p.seed)]
    return {"budget": budget, "results": [
        {"policy": r.policy, "curve": r.curve, "judged_for_90": r.judged_for_90, "tau_at_budget": r.tau_at_budget,
         "topics": len(r.orders), "pool": sum(len(order) for order in r.orders.values())} for r in results]}, []


def _judging_simulation_summary(job: Job) -> str:
    return (f"Replayed {counted(len(job.result.get('results', [])), 'judging order')} on "
            f"{job.params.get('filename', 'the qrels')}.")


register(JudgingSimulationParams, _judging_simulation, summary=_judging_simulation_summary)
