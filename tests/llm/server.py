"""A chat-completions server of the tests' own (ThreadingHTTPServer in a thread, on 127.0.0.1): it answers each
POST /v1/chat/completions with what the test's `answer` function returns, and counts the requests, the prompts, the
keys it was sent and the requests in flight at once. Asked for `logprobs`, it gives them as OpenAI does (`logprobs`
"answer"), or refuses the request with 400 as some servers do ("refuse"), or leaves them out ("ignore")."""
from __future__ import annotations

import json
import math
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class Answer:
    """A reply's text (a completion), or a status with headers and an error body; `delay` seconds first."""

    text: str | None = "##final score: 2"
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    # With logprobs asked for: the alternatives (token -> probability) at the reply's last number; every other token
    # has probability 1. None: the reply's tokens each with probability 1 alone.
    top: dict[str, float] | None = None


# Tokens as a tokenizer might cut "##final score: 2": "#", "#", "final", " score", ":", " 2".
_TOKEN = re.compile(r"\s*\d+|\s*[A-Za-z]+|\s*[^\w\s]|\s+")


def token_logprobs(text: str, top: dict[str, float] | None, wanted: int) -> list[dict]:
    """The reply's tokens as chat completions' `logprobs.content`, each with its `wanted` top alternatives."""
    tokens = _TOKEN.findall(text)
    assert "".join(tokens) == text
    numbers = [i for i, token in enumerate(tokens) if token.strip().isdigit()]

    def entry(token: str, p: float) -> dict:
        return {"token": token, "logprob": math.log(p) if p > 0 else -9999.0, "bytes": list(token.encode())}

    content = []
    for i, token in enumerate(tokens):
        alternatives = top if top is not None and numbers and i == numbers[-1] else {token: 1.0}
        ranked = sorted(alternatives.items(), key=lambda kv: -kv[1])[:wanted]
        chosen = entry(token, alternatives.get(token, 1.0))
        content.append({**chosen, "top_logprobs": [entry(t, p) for t, p in ranked]})
    return content


def completion(text: str | None, model: str, prompt: str, logprobs: list[dict] | None = None) -> dict:
    choice = {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": text}}
    if logprobs is not None:
        choice["logprobs"] = {"content": logprobs, "refusal": None}
    return {"id": "chatcmpl-test", "object": "chat.completion", "created": 0, "model": model,
            "choices": [choice],
            "usage": {"prompt_tokens": len(prompt.split()), "completion_tokens": len((text or "").split()),
                      "total_tokens": len(prompt.split()) + len((text or "").split())}}


class ChatServer:
    def __init__(self, answer: Callable[[str, int], Answer] | None = None, *, logprobs: str = "answer") -> None:
        assert logprobs in ("answer", "refuse", "ignore")
        self.answer = answer or (lambda prompt, n: Answer())
        self.logprobs = logprobs
        self.prompts: list[str] = []
        self.bodies: list[dict] = []  # every request's JSON body
        self.keys: list[str] = []
        self.times: list[float] = []
        self.in_flight = 0
        self.most_in_flight = 0
        self.lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format, *args):  # quiet
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
                prompt = body["messages"][-1]["content"]
                with server.lock:
                    n = len(server.prompts)
                    server.prompts.append(prompt)
                    server.bodies.append(body)
                    server.keys.append(self.headers.get("Authorization", ""))
                    server.times.append(time.monotonic())
                    server.in_flight += 1
                    server.most_in_flight = max(server.most_in_flight, server.in_flight)
                asked = bool(body.get("logprobs"))
                try:
                    answer = server.answer(prompt, n)
                    if asked and server.logprobs == "refuse":  # as a server without them says so
                        answer = Answer("logprobs is not supported by this model", status=400)
                    if answer.delay:
                        time.sleep(answer.delay)
                    if answer.status == 200:
                        logprobs = (token_logprobs(answer.text or "", answer.top, int(body.get("top_logprobs") or 0))
                                    if asked and server.logprobs == "answer" else None)
                        data = json.dumps(completion(answer.text, body["model"], prompt, logprobs)).encode()
                    else:
                        data = json.dumps({"error": {"message": answer.text or "server error",
                                                     "type": "test"}}).encode()
                finally:
                    with server.lock:
                        server.in_flight -= 1
                self.send_response(answer.status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for name, value in answer.headers.items():
                    self.send_header(name, value)
                self.end_headers()
                try:
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):  # the client gave up (a timeout)
                    pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    @property
    def requests(self) -> int:
        return len(self.prompts)

    def __enter__(self) -> ChatServer:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
