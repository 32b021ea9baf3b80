// Live progress of queued and running jobs: polls the job API once a second until each job finishes.
const ACTIVE = new Set(["queued", "running"]);

async function poll(row) {
  const response = await fetch(`/api/jobs/${row.dataset.job}/`, { headers: { Accept: "application/json" } });
  if (!response.ok) return false;
  const job = await response.json();
  row.querySelector("progress").value = job.progress;
  row.querySelector(".status").textContent = job.status;
  row.querySelector(".message").textContent = job.message;
  row.dataset.status = job.status;
  if (!ACTIVE.has(job.status) && row.dataset.detail) {
    window.location.reload();  // the detail page shows the result, problems and warnings
  }
  return ACTIVE.has(job.status);
}

function watch(row) {
  const tick = async () => {
    if (await poll(row)) setTimeout(tick, 1000);
  };
  setTimeout(tick, 500);
}

document.querySelectorAll("[data-job]").forEach((row) => {
  if (ACTIVE.has(row.dataset.status)) watch(row);
});
