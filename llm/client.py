"""An OpenAI-compatible chat-completions endpoint as an LLM judge (docs/llm.md), through the official
`openai` client: its own retries (429 with Retry-After, 5xx, timeouts, with backoff), at most `concurrency` requests
in flight (a semaphore), `samples` replies per prompt and their majority grade.

The HTTP runs in an event loop of its own, in a thread, so that the caller (a Django service, whose ORM is sync)
hands it prompts and takes back verdicts as concurrent.futures, writing them from its own thread. The key is read
from the environment variable the endpoint names (only an `ASSESS_LLM_KEY_...` one) when the judge opens, and never
leaves this module: it is in no message, log line or verdict (a server that echoes it finds it replaced by `[key]`).
No redirect is followed, and every request's host is resolved and its addresses checked before it connects
(docs/security.md, "The LLM endpoint's address")."""
from __future__ import annotations

import asyncio
import ipaddress
import os
import re
import socket
import threading
import time
import unicodedata
from collections.abc import Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field
from types import TracebackType
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from ir.html_text import html_text
from ir.llm_replies import ARQMATH_GRADES, majority, reply_grade
from ir.problems import InputError

if TYPE_CHECKING:
    from openai import AsyncOpenAI

Address = ipaddress.IPv4Address | ipaddress.IPv6Address

# Local servers (Ollama, vLLM, llama.cpp) want no key; the client wants one.
PLACEHOLDER_KEY = "no-key"
ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# The only environment variables a key may be read from: the deployment names its LLM keys so (docs/llm.md), and no
# endpoint can name another server secret (SECRET_KEY, DATABASE_URL, AWS_SECRET_ACCESS_KEY) to have it sent away.
KEY_PREFIX = "ASSESS_LLM_KEY_"
KEY_ENV_NAME = re.compile(re.escape(KEY_PREFIX) + r"[A-Za-z0-9_]+")
# Values that look like a key rather than a variable's name (OpenAI's, OpenRouter's, Anthropic's prefixes, "Bearer").
_KEY_LIKE = re.compile(r"^(sk-|sk_|or-|rk-|pk-|Bearer\s)|[^A-Za-z0-9_]", re.IGNORECASE)
KEY_REFUSED = (f"the key itself is never accepted: set it in an environment variable named {KEY_PREFIX}<NAME> in "
               "the web server's and the worker's environment, and give that variable's NAME in api_key_env")
KEY_ENV_RULE = (f"the key's environment variable must be named {KEY_PREFIX}<NAME> (e.g. {KEY_PREFIX}OPENAI), "
                "exported in the web server's and the worker's environment; no other variable is ever read")
# How much of a server's error message a failure keeps: the body is the server's, untrusted (docs/security.md).
MESSAGE_CHARS = 200
_UNSHOWN = re.compile(r"\s+")
# A base URL's host: a name (letters, digits, '-', '_', dots) or an IPv4 address; IPv6 addresses come bracketed.
_HOST = re.compile(r"[A-Za-z0-9_]([A-Za-z0-9_.-]*[A-Za-z0-9_])?\.?")
# The cloud providers' instance metadata services, which hand out the host's credentials: never an endpoint
# (docs/security.md). Link-local addresses (169.254.0.0/16, fe80::/10) are refused as a whole.
METADATA_HOSTS = frozenset({"metadata.google.internal", "metadata.goog", "metadata", "instance-data",
                            "instance-data.ec2.internal", "metadata.azure.internal"})
METADATA_ADDRESSES = frozenset({ipaddress.ip_address("100.100.100.200"), ipaddress.ip_address("fd00:ec2::254")})
BASE_URL_MAX = 500


def _address(host: str) -> Address | None:
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


_NAT64 = ipaddress.ip_network("64:ff9b::/96")
_NAT64_LOCAL = ipaddress.ip_network("64:ff9b:1::/48")
_COMPATIBLE = ipaddress.ip_network("::/96")
# RFC 6052's places of the IPv4 address in a NAT64 address, by prefix length (bytes; byte 8 is always 0). The local
# prefix 64:ff9b:1::/48 may be used with any of /48 to /96, so each is read.
_NAT64_PLACES = ((6, 7, 9, 10), (7, 9, 10, 11), (9, 10, 11, 12), (12, 13, 14, 15))


def _embedded(address: Address) -> list[Address]:
    """The address and every IPv4 address an IPv6 one carries, which a route or a translator may reach instead:
    IPv4-mapped, IPv4-compatible (::/96), NAT64 (64:ff9b::/96, 64:ff9b:1::/48), 6to4 (2002::/16) and Teredo."""
    found: list[Address] = [address]
    if not isinstance(address, ipaddress.IPv6Address):
        return found
    raw = address.packed
    if address.ipv4_mapped:
        found.append(address.ipv4_mapped)
    if address in _COMPATIBLE or address in _NAT64:
        found.append(ipaddress.IPv4Address(raw[12:]))
    if address in _NAT64_LOCAL:
        found += [ipaddress.IPv4Address(bytes(raw[i] for i in place)) for place in _NAT64_PLACES]
    if address.sixtofour:
        found.append(address.sixtofour)
    if address.teredo:
        found += list(address.teredo)
    return found


def address_refused(address: Address) -> bool:
    """Whether an address is never an LLM endpoint: link-local (169.254.0.0/16, fe80::/10) or a cloud metadata
    service, itself or the IPv4 address it embeds. The one rule of the base URL check and of each request."""
    return any(a.is_link_local or a in METADATA_ADDRESSES for a in _embedded(address))


def _refusal(shown: str, address: str = "") -> str:
    resolves = f" resolves to {address}" if address else ""
    return (f"'{shown}'{resolves}: a link-local address or a cloud metadata service is never an LLM endpoint (it "
            "would hand the server's own credentials to whoever reads the replies); a local server answers on "
            "localhost or a private address")


def host_refusal(host: str) -> str | None:
    """Why a request to `host` must not be made, or None: its literal address, or else every address the resolver
    gives for it now (getaddrinfo), checked by `address_refused`. A name that does not resolve is not refused here:
    its connection fails with its own error."""
    host = host.strip("[]").rstrip(".").lower()
    shown = host[:100]
    if host in METADATA_HOSTS:
        return _refusal(shown)
    literal = _address(host)
    if literal is not None:
        return _refusal(shown) if address_refused(literal) else None
    try:
        infos = socket.getaddrinfo(host, None, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError):
        return None
    for info in infos:
        text = str(info[4][0]).split("%")[0]  # an IPv6 scope (fe80::1%eth0) is no part of the address
        try:
            resolved = ipaddress.ip_address(text)
        except ValueError:
            continue
        if address_refused(resolved):
            return _refusal(shown, text)
    return None


def message_excerpt(text: str, limit: int = MESSAGE_CHARS) -> str:
    """A server's message as a failure keeps it: its markup read as text (an HTML error page), control and format
    characters (bidi overrides, zero-width) made spaces, spaces collapsed, at most `limit` characters. Pages escape
    it again when they show it."""
    if "<" in text:
        text = html_text(text)
    text = "".join(" " if unicodedata.category(c) in ("Cc", "Cf") else c for c in text[:limit * 4])
    text = _UNSHOWN.sub(" ", text).strip()
    return text if len(text) <= limit else text[:limit - 1].rstrip() + "…"


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
    refusal = host_refusal(host)
    if refusal is not None:
        raise InputError(refusal)
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


def key_env_problem(env_name: str) -> str | None:
    """Why `env_name` cannot name a key's variable, or None (empty: no key): the one check of the page, the API, the
    command and the judge opening (an endpoint stored before the check sends nothing). Not quoted back: what was
    given may be the key itself."""
    if not env_name or KEY_ENV_NAME.fullmatch(env_name):
        return None
    if _KEY_LIKE.search(env_name) or not ENV_NAME.fullmatch(env_name):
        return f"this is not the name of an environment variable: {KEY_REFUSED}"
    return KEY_ENV_RULE


def api_key(env_name: str) -> str:
    """The key in the environment variable `env_name` (read now, never stored); the placeholder when the endpoint
    names none. A variable not named ASSESS_LLM_KEY_..., or named but unset or empty, is refused before anything is
    sent."""
    if not env_name:
        return PLACEHOLDER_KEY
    problem = key_env_problem(env_name)
    if problem is not None:
        raise InputError(problem)
    value = os.environ.get(env_name, "")
    if not value:
        raise InputError(f"the environment variable {env_name}, which should hold the endpoint's key, is not set in "
                         "this process (the web server's or the worker's): nothing was sent")
    return value


class AddressRefused(Exception):
    """A request whose host resolves to an address never to be reached (host_refusal): it is not sent."""


async def _address_checked(request: Any) -> None:
    """The http client's hook before each request (the client's own retries included): the host is resolved now, in
    the loop's resolver thread, and a refused address stops the request before it connects."""
    refusal = await asyncio.get_running_loop().run_in_executor(None, host_refusal, request.url.host)
    if refusal is not None:
        raise AddressRefused(refusal)


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

    def __init__(self, settings: EndpointSettings, *, grades: Sequence[int] = ARQMATH_GRADES, scale: str = "0 to 3"
                 ) -> None:
        self.settings = settings
        self.grades, self.scale = tuple(grades), scale
        self._key = api_key(settings.api_key_env)  # before any thread or connection: an unset key sends nothing
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="llm-judge", daemon=True)
        self._thread.start()
        self._client, self._slots = asyncio.run_coroutine_threadsafe(self._open(), self._loop).result()

    async def _open(self) -> tuple[AsyncOpenAI, asyncio.Semaphore]:
        import httpx2
        from openai import AsyncOpenAI, DefaultAsyncHttpxClient  # seconds to import: only commands and jobs that judge

        s = self.settings
        # No redirect is followed (a 3xx is a failure naming its status): the base URL's check covers where the
        # requests go, and each request's host is resolved and checked as it is sent (docs/security.md).
        http = DefaultAsyncHttpxClient(follow_redirects=False, event_hooks={"request": [_address_checked]},
                                       limits=httpx2.Limits(max_connections=s.concurrency,
                                                            max_keepalive_connections=s.concurrency))
        client = AsyncOpenAI(base_url=s.base_url, api_key=self._key, timeout=s.timeout, max_retries=s.retries,
                             http_client=http)
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
        grades = [reply_grade(reply.text, grades=self.grades) for reply in replies]
        verdict = Verdict(grade=None, replies=texts, sample_grades=grades,
                          tokens_in=sum(r.tokens_in for r in replies), tokens_out=sum(r.tokens_out for r in replies),
                          latency=round(sum(r.latency for r in replies), 4))
        errors = [reply.error for reply in replies if reply.error]
        if errors:
            many = f" ({len(errors)} of {len(replies)} samples)" if len(errors) > 1 else ""
            verdict.failure = errors[0] + many
        elif (grade := majority(grades)) is None:
            verdict.failure = (f"no grade in the reply (expected '##final score: N', N one of the scheme's grades, "
                               f"{self.scale})" if len(replies) == 1
                               else f"no grade in any of the {len(replies)} replies (the scheme's grades: "
                                    f"{self.scale})")
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
            except AddressRefused as exc:
                return _Reply(None, latency=time.perf_counter() - started, error=f"nothing was sent: {exc}")
            except openai.APITimeoutError:
                return _Reply(None, latency=time.perf_counter() - started,
                              error=f"timed out after {s.timeout:g} s, {self._tries()}")
            except openai.APIStatusError as exc:
                status = exc.status_code
                said = ("a redirect, not followed: give the base URL it leads to" if 300 <= status < 400
                        else self._excerpt(str(exc)))
                return _Reply(None, latency=time.perf_counter() - started,
                              error=f"HTTP {status}{self._tried(status)}: {said}")
            except openai.APIError as exc:  # a connection refused or cut, a body that is not a completion
                return _Reply(None, latency=time.perf_counter() - started,
                              error=f"{type(exc).__name__}, {self._tries()}: {self._excerpt(str(exc))}")
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

    def _excerpt(self, text: str) -> str:
        """A server's error message as a failure keeps it (message_excerpt), the key scrubbed first."""
        return message_excerpt(self._scrub(text))

    def _scrub(self, text: str) -> str:
        if self._key != PLACEHOLDER_KEY and self._key in text:
            return text.replace(self._key, "[key]")
        return text
