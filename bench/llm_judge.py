"""LLM judging benchmark: the llm_judge job's judgments per second against a bare asyncio client, same server, same run.

A chat-completions server of the script's own (ThreadingHTTPServer, in a process of its own so that it does not share
the measured process's interpreter) answers every request after a fixed --delay-ms (200 ms) with
`##final score: 2`. Builds the campaign `bench-llm` (a collection of --topics x --items answer posts with real-looking
bodies, pooled). Each round: the campaign's LLM grades are deleted (untimed), then `llm.services.llm_judge` grades
every pool item at concurrency 8 (prompts from the database, texts through the HTML-to-text path, grades stored in
batches), then a bare client (openai's AsyncOpenAI, an asyncio.Semaphore of 8, no Django) sends the same number of
requests. One untimed round of each comes first. Prints judgments per second of each and the ratio (goal, issue 26:
the job at least 90% of the bare client's). Results land in docs/benchmarks.md ("LLM judging").

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/assess_bench_llm .venv/bin/python bench/llm_judge.py
    DATABASE_URL=... .venv/bin/python bench/llm_judge.py --topics 2 --items 20 --rounds 1   # quick check
"""
from __future__ import annotations

import asyncio
import json
import multiprocessing
import statistics
import sys
import time
from functools import partial
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import harness
from harness import note

DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/assess_bench_llm"
CAMPAIGN = "bench-llm"
CONCURRENCY = 8
GOAL = 0.9
BODY = ("<p>Consider the integral <span class=\"math-container\">$\\int_0^{{\\pi}} \\sin^{n} x\\,dx$</span>. "
        "Integrating by parts gives the recurrence <span class=\"math-container\">$I_n = \\frac{{n-1}}{{n}} "
        "I_{{n-2}}$</span>, and with <span class=\"math-container\">$I_0 = \\pi$</span>, "
        "<span class=\"math-container\">$I_1 = 2$</span> answer {n} follows.</p><p>This is Wallis' formula.</p>")


def parse_args(argv: list[str]):
    parser = harness.Parser(__doc__)
    parser.count("topics", 10, "topics")
    parser.count("items", 40, "pooled answer posts per topic (topics x items judgments per side and round)")
    parser.count("delay-ms", 200, "the server's fixed answer time, in milliseconds")
    parser.count("rounds", 3, "timed rounds (medians reported)")
    return parser.parse(argv)


def serve(port_out, delay: float) -> None:
    """The server process: answers every chat completion after `delay` seconds."""
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format, *args):
            pass

        def do_POST(self):
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
            time.sleep(delay)
            data = json.dumps({"id": "bench", "object": "chat.completion", "created": 0, "model": body["model"],
                               "choices": [{"index": 0, "finish_reason": "stop",
                                            "message": {"role": "assistant", "content": "##final score: 2"}}],
                               "usage": {"prompt_tokens": 300, "completion_tokens": 5, "total_tokens": 305}}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    httpd.request_queue_size = 128
    port_out.put(httpd.server_address[1])
    httpd.serve_forever()


def build(args):
    """The campaign with its collection, topics and pools, made again when its shape differs from the one asked."""
    from pooling.models import Campaign, Collection, PoolItem, Post, Topic

    campaign = Campaign.objects.filter(name=CAMPAIGN).first()
    if campaign is not None and campaign.topics.count() == args.topics and PoolItem.objects.filter(
            campaign=campaign).count() == args.topics * args.items:
        return campaign
    if campaign is not None:
        campaign.delete()
    Collection.objects.filter(name=CAMPAIGN).delete()
    note(f"building {CAMPAIGN}: {args.topics} topics x {args.items} pooled posts")
    collection = Collection.objects.create(name=CAMPAIGN)
    campaign = Campaign.objects.create(name=CAMPAIGN, task=Campaign.Task.ANSWERS, collection=collection,
                                       primary_depth=1000, alternate_depth=1000)
    topics = Topic.objects.bulk_create(
        Topic(campaign=campaign, topic_id=f"A.{301 + n}", position=n, title=f"Evaluate the sine integral {n}",
              question="<p>How do I compute <span class=\"math-container\">$\\int_0^\\pi \\sin^n x\\,dx$</span>?</p>")
        for n in range(args.topics))
    ids = [(topic, str(1_000_000 + t * args.items + i), i) for t, topic in enumerate(topics) for i in range(args.items)]
    Post.objects.bulk_create((Post(collection=collection, post_id=post_id, kind=Post.Kind.ANSWER, thread_id="1",
                                   body=BODY.format(n=post_id)) for _topic, post_id, _i in ids), batch_size=5000)
    PoolItem.objects.bulk_create((PoolItem(campaign=campaign, topic=topic, item_id=post_id, position=i)
                                  for topic, post_id, i in ids), batch_size=5000)
    return campaign


async def bare(url: str, prompts: list[str]) -> int:
    """The reference: the same requests through the openai client alone, CONCURRENCY in flight."""
    from openai import AsyncOpenAI

    slots = asyncio.Semaphore(CONCURRENCY)
    async with AsyncOpenAI(base_url=url, api_key="no-key", max_retries=0, timeout=60) as client:
        async def one(prompt: str) -> str:
            async with slots:
                response = await client.chat.completions.create(
                    model="bench", temperature=0, messages=[{"role": "user", "content": prompt}])
                return response.choices[0].message.content or ""

        replies = await asyncio.gather(*(one(prompt) for prompt in prompts))
    return sum(1 for reply in replies if reply.endswith("2"))


def main(argv: list[str]) -> None:
    args = parse_args(argv)
    harness.database_url(DEFAULT_DATABASE_URL, "bench/llm_judge.py")
    harness.setup_django()
    only_ours = partial(harness.only_campaign, CAMPAIGN)
    harness.database_of_our_own("bench/llm_judge.py", only_ours, f"deletes what campaign {CAMPAIGN} holds")
    import openai  # noqa: F401 (seconds to import: before either side is timed, not inside the first)

    from llm.client import EndpointSettings
    from llm.models import LlmGrade
    from llm.services import llm_judge

    facts = harness.machine_facts("shared_buffers", "synchronous_commit", code=("llm", "ir"))
    campaign = build(args)
    total = args.topics * args.items
    ports: multiprocessing.Queue = multiprocessing.Queue()
    server = multiprocessing.Process(target=serve, args=(ports, args.delay_ms / 1000), daemon=True)
    server.start()
    url = f"http://127.0.0.1:{ports.get(timeout=30)}/v1"
    settings = EndpointSettings(base_url=url, model="bench", concurrency=CONCURRENCY, retries=0, timeout=60)
    prompt = "Query: How do I compute $\\int_0^\\pi \\sin^n x\\,dx$?\nPassage: " + BODY + "\n##final score: N"
    seconds: dict[str, list[float]] = {"job": [], "bare": []}
    try:
        # One untimed round of each first: the first run creates the prompt rows and warms both clients' code paths.
        LlmGrade.objects.filter(campaign=campaign).delete()
        llm_judge(campaign=campaign, settings=settings, limit_per_topic=CONCURRENCY)
        asyncio.run(bare(url, [prompt] * CONCURRENCY))
        for n in range(1, args.rounds + 1):
            LlmGrade.objects.filter(campaign=campaign).delete()
            took, _, result = harness.timed(llm_judge, campaign=campaign, settings=settings)
            assert result.judged == total and result.failed == 0, result
            seconds["job"].append(took)
            took, _, graded = harness.timed(asyncio.run, bare(url, [prompt] * total))
            assert graded == total, graded
            seconds["bare"].append(took)
            note(f"round {n}: job {seconds['job'][-1]:.2f} s, bare client {seconds['bare'][-1]:.2f} s "
                 f"(load {harness.load()})")
    finally:
        server.terminate()
    facts["load_after"] = harness.load()
    median = {kind: statistics.median(values) for kind, values in seconds.items()}
    rate = {kind: total / value for kind, value in median.items()}
    ratio = rate["job"] / rate["bare"]
    ceiling = CONCURRENCY / (args.delay_ms / 1000)
    print(f"LLM judging, {total:,} items ({args.topics} topics x {args.items} posts), server answering after "
          f"{args.delay_ms} ms, concurrency {CONCURRENCY} (ceiling {ceiling:.0f}/s), median of {args.rounds} "
          f"round(s); load before {facts['load_before']}, after {facts['load_after']}; code {facts['code']}")
    print(harness.table(["side", "median s", "judgments/s", "min s", "max s"], [
        [label, f"{median[kind]:.2f}", f"{rate[kind]:.1f}", f"{min(seconds[kind]):.2f}", f"{max(seconds[kind]):.2f}"]
        for kind, label in (("job", "llm_judge (prompts from the database, grades stored)"),
                            ("bare", "bare AsyncOpenAI + semaphore"))]))
    verdict = "met" if ratio >= GOAL else "MISSED"
    print(f"job / bare client (judgments/s): {ratio:.1%}; goal at least {GOAL:.0%}: {verdict}")
    harness.save("llm-judge", {"args": vars(args), "facts": facts, "seconds": seconds, "items": total,
                               "judgments_per_second": rate, "ratio": ratio}, args.out)


if __name__ == "__main__":
    main(sys.argv[1:])
