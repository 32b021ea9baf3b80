"""An OpenAI-compatible chat-completions endpoint as an LLM judge (issue 26.1, docs/llm.md), through the official
`openai` client: its own retries (429 with Retry-After, 5xx, timeouts, with backoff), at most `concurrency` requests
in flight (a semaphore), `samples` replies per prompt and their majority grade.

The HTTP runs in an event loop of its own, in a thread, so that the caller (a Django service, whose ORM is sync)
hands it prompts and takes back verdicts as concurrent.futures, writing them from its own thread. The key is read
from the environment variable the endpoint names when the judge opens, and never leaves this module: it is in no
message, log line or verdict (a server that echoes it finds it replaced by `[key]`)."""
from __future__ import annotations

import asyncio
import ipaddress
import os
import re
import socket
import threading
import time
from concurrent.futures import Future
from dataclasses import dataclass, field
from types import TracebackType
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from ir.llm_replies import majority, reply_grade
from ir.problems import InputError

if TYPE_CHECKING:
    from openai import AsyncOpenAI

# Local servers (Ollama, vLLM, llama.cpp) want no key; the client wants one.
PLACEHOLDER_KEY = "no-key"
ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# How much of a server's error message a failure keeps.
MESSAGE_CHARS = 300
# A base URL's host: a name (letters, digits, '-', '_', dots) or an IPv4 address; IPv6 addresses come bracketed.
_HOST = re.compile(r"[A-Za-z0-9_]([A-Za-z0-9_.-]*[A-Za-z0-9_])?\.?")
# The cloud providers' instance metadata services, which hand out the host's credentials: never an endpoint
# (docs/security.md). Link-local addresses (169.254.0.0/16, fe80::/10) are refused as a whole.
METADATA_HOSTS = frozenset({"metadata.google.internal", "metadata.goog", "metadata", "instance-data",
                            "instance-data.ec2.internal", "metadata.azure.internal"})
METADATA_ADDRESSES = frozenset({ipaddress.ip_address("100.100.100.200"), ipaddress.ip_address("fd00:ec2::254")})
BASE_URL_MAX = 500


def _address(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """The address a host names literally, in any form a resolver takes (`169.254.169.254`, `2852039166`,
    `0xa9fea9fe`, `::ffff:169.254.169.254`); None for a name."""
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        try:
            return ipaddress.IPv4Address(socket.inet_aton(host))
        except OSError:
            return None
    mapped = getattr(address, "ipv4_mapped", None)
    return mapped or address


def base_url_normalised(value: str) -> str:
    """The one check of an endpoint's base URL (the page's form, the API, the command and each judging run): an
    address typed without a scheme (`localhost:11434/v1`, `my-gpu-box:8000/v1`) is taken as http://, as local servers
    (Ollama, vLLM) answer on plain http; only http and https; a link-local address or a cloud metadata host is
    refused. Loopback and private addresses stay allowed: that is where a local model answers."""
    text = (value or "").strip()
    shown = text[:100]
    if not text:
        raise InputError("the base URL is empty (e.g. http://localhost:11434/v1)")
    if len(text) > BASE_URL_MAX:
        raise InputError(f"the base URL has {len(text):,} characters, more than {BASE_URL_MAX}")
    if not re.match(r"^[A-Za-z][A-Za-z0-9+.-]*://", text):
        text = "http://" + text
    try:
        parts = urlsplit(text)
        port = parts.port
    except ValueError:
        raise InputError(f"'{shown}': not a URL (e.g. http://localhost:11434/v1)") from None
    if parts.scheme.lower() not in ("http", "https"):
        raise InputError(f"'{shown}': the base URL must start with http:// or https:// (or neither: http:// is "
                         "assumed)")
    host = (parts.hostname or "").rstrip(".").lower()
    if parts.username is not None:  # not quoted back: it may hold a password
        raise InputError("the base URL must not carry a user name or password: name the key's environment variable "
                         "instead")
    bracketed = parts.netloc.startswith("[")
    if (not host or any(c.isspace() for c in text)
            or (not bracketed and not _HOST.fullmatch(host)) or port == 0):
        raise InputError(f"'{shown}': not a URL with a host (e.g. http://localhost:11434/v1)")
    address = _address(host)
    if host in METADATA_HOSTS or (address is not None and (address.is_link_local or address in METADATA_ADDRESSES)):
        raise InputError(f"'{shown}': a link-local address or a cloud metadata service is never an LLM endpoint "
                         "(it would hand the server's own credentials to whoever reads the replies); a local server "
                         "answers on localhost or a private address")
    return text


@dataclass(frozen=True)
class EndpointSettings:
    """What a judge needs of an endpoint (llm.models.Endpoint's fields, or a command's overrides of them)."""

    base_url: str
    model: str
    api_key_env: str = ""
    temperature: float = 0.0
    concurrency: int = 8
    timeout: float = 60.0
    retries: int = 3
    samples: int = 1


@dataclass
class Verdict:
    """What a model said of one prompt: the majority grade of its samples, or why there is none (`failure`)."""

    grade: int | None
    failure: str = ""
    replies: list[str] = field(default_factory=list)
    sample_grades: list[int | None] = field(default_factory=list)
    tokens_in: int = 0
    tokens_out: int = 0
    latency: float = 0.0

    @classmethod
    def failed(cls, failure: str) -> Verdict:
        return cls(grade=None, failure=failure)


def api_key(env_name: str) -> str:
    """The key in the environment variable `env_name` (read now, never stored); the placeholder when the endpoint
    names none. A variable named but unset or empty is refused before anything is sent."""
    if not env_name:
        return PLACEHOLDER_KEY
    if not ENV_NAME.fullmatch(env_name):
        # Not quoted back: what was given may be the key itself.
        raise InputError("the key's environment variable must be a variable's name (letters, digits and _): give the "
                         "name of the variable that holds the key, never the key")
    value = os.environ.get(env_name, "")
    if not value:
        raise InputError(f"the environment variable {env_name}, which should hold the endpoint's key, is not set in "
                         "this process (the web server's or the worker's): nothing was sent")
    return value


@dataclass
class _Reply:
    text: str | None
    tokens_in: int = 0
    tokens_out: int = 0
    latency: float = 0.0
    error: str = ""


class Judge:
    """An endpoint, open: `submit(prompt)` from any thread returns a Future of its Verdict. Use as a context manager
    (closing it ends the loop, its thread and the client's connections)."""

    def __init__(self, settings: EndpointSettings, *, max_grade: int = 3) -> None:
        self.settings = settings
        self.max_grade = max_grade
        self._key = api_key(settings.api_key_env)  # before any thread or connection: an unset key sends nothing
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="llm-judge", daemon=True)
        self._thread.start()
        self._client, self._slots = asyncio.run_coroutine_threadsafe(self._open(), self._loop).result()

    async def _open(self) -> tuple[AsyncOpenAI, asyncio.Semaphore]:
        from openai import AsyncOpenAI  # seconds to import: only commands and jobs that judge pay for it

        s = self.settings
        client = AsyncOpenAI(base_url=s.base_url, api_key=self._key, timeout=s.timeout, max_retries=s.retries)
        return client, asyncio.Semaphore(s.concurrency)

    def __enter__(self) -> Judge:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.close()

    def close(self) -> None:
        if self._loop.is_closed():
            return
        asyncio.run_coroutine_threadsafe(self._client.close(), self._loop).result()
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join()
        self._loop.close()

    def submit(self, prompt: str) -> Future[Verdict]:
        return asyncio.run_coroutine_threadsafe(self.verdict(prompt), self._loop)

    async def verdict(self, prompt: str) -> Verdict:
        """The samples' replies (at once, each under the semaphore) and their majority grade. A sample the endpoint
        did not answer (after the client's retries) fails the prompt: it is asked again by the next run."""
        replies = await asyncio.gather(*(self._ask(prompt) for _ in range(self.settings.samples)))
        texts = [reply.text or "" for reply in replies]
        grades = [reply_grade(reply.text, max_grade=self.max_grade) for reply in replies]
        verdict = Verdict(grade=None, replies=texts, sample_grades=grades,
                          tokens_in=sum(r.tokens_in for r in replies), tokens_out=sum(r.tokens_out for r in replies),
                          latency=round(sum(r.latency for r in replies), 4))
        errors = [reply.error for reply in replies if reply.error]
        if errors:
            many = f" ({len(errors)} of {len(replies)} samples)" if len(errors) > 1 else ""
            verdict.failure = errors[0] + many
        elif (grade := majority(grades)) is None:
            verdict.failure = (f"no grade in the reply (expected '##final score: N', N from 0 to {self.max_grade})"
                               if len(replies) == 1 else f"no grade in any of the {len(replies)} replies")
        else:
            verdict.grade = grade
        return verdict

    async def _ask(self, prompt: str) -> _Reply:
        import openai

        s = self.settings
        async with self._slots:
            started = time.perf_counter()
            try:
                response = await self._client.chat.completions.create(
                    model=s.model, temperature=s.temperature, messages=[{"role": "user", "content": prompt}])
            except openai.APITimeoutError:
                return _Reply(None, latency=time.perf_counter() - started,
                              error=f"timed out after {s.timeout:g} s, {self._tries()}")
            except openai.APIStatusError as exc:
                return _Reply(None, latency=time.perf_counter() - started,
                              error=self._scrub(f"HTTP {exc.status_code}{self._tried(exc.status_code)}: "
                                                f"{str(exc)[:MESSAGE_CHARS]}"))
            except openai.APIError as exc:  # a connection refused or cut, a body that is not a completion
                return _Reply(None, latency=time.perf_counter() - started,
                              error=self._scrub(f"{type(exc).__name__}, {self._tries()}: {str(exc)[:MESSAGE_CHARS]}"))
            latency = time.perf_counter() - started
        usage = response.usage
        choice = response.choices[0] if response.choices else None
        text = choice.message.content if choice is not None else None
        reply = _Reply(self._scrub(text) if text is not None else None, latency=latency,
                       tokens_in=(usage.prompt_tokens or 0) if usage else 0,
                       tokens_out=(usage.completion_tokens or 0) if usage else 0)
        if text is None:
            reply.error = "the reply has no message content"
        return reply

    def _tries(self) -> str:
        n = self.settings.retries + 1
        return f"{n} {'try' if n == 1 else 'tries'}"

    def _tried(self, status: int) -> str:
        # The client retries 408, 409, 429 and 5xx (honouring Retry-After); other statuses are answered at once.
        return f" after {self._tries()}" if status in (408, 409, 429) or status >= 500 else ""

    def _scrub(self, text: str) -> str:
        if self._key != PLACEHOLDER_KEY and self._key in text:
            return text.replace(self._key, "[key]")
        return text
