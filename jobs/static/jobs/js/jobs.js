// Live progress of queued and running jobs: polls the job API once a second until each job finishes or its worker
// stops answering; a job page then reloads to show the result, the reason or the Retry button.
const ACTIVE = new Set(["queued", "running"]);

async function poll(row) {
  const response = await fetch(`/api/jobs/${row.dataset.job}/`, { headers: { Accept: "application/json" } });
  if (!response.ok) return false;
  const job = await response.json();
  const active = ACTIVE.has(job.status) && !job.stale;
  if (row.dataset.detail && !active) {
    window.location.reload();  // the page says what the job did, why it failed, or offers Retry
    return false;
  }
  row.querySelector("progress").value = job.progress;
  row.querySelector(".status").textContent = job.stale ? "stalled" : job.status;
  const message = row.querySelector(".message");
  if (row.dataset.detail) {
    message.textContent = job.message ? ` — ${job.message}` : "";
  } else {
    message.textContent = job.message;
  }
  row.dataset.status = job.status;
  row.classList.toggle("job-failed", job.status === "failed");
  row.classList.toggle("job-stalled", Boolean(job.stale));
  return active;
}

function watch(row) {
  const tick = async () => {
    if (await poll(row)) setTimeout(tick, 1000);
  };
  setTimeout(tick, 500);
}

document.querySelectorAll("[data-job]").forEach((row) => {
  if (ACTIVE.has(row.dataset.status) && !row.dataset.stale) watch(row);
});
