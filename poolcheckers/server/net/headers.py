"""What every request is checked for and every answer carries, as pure ASGI
middleware around the app (HTTP and WebSocket):

- :class:`RepeatedHeaders` refuses (400) a request that repeats ``Cookie``,
  ``Origin`` or ``Host``: two readers of one request (the cross-site guard, a route)
  could each take a different copy;
- :class:`AllowedHosts` refuses (400) a ``Host`` that is not one of the site's
  names: the site takes its own origin from ``Host``, and a page of another site
  whose name was rebound to this machine's address (DNS rebinding) would otherwise
  pass for the site itself.  IP addresses are always accepted: such a page can
  only reach the server under its own name;
- :class:`SecurityHeaders` gives every answer a Content-Security-Policy without
  inline script, no framing, ``nosniff``, a referrer policy, and HSTS when the
  request came over HTTPS (directly or through a trusted proxy).

A refused WebSocket handshake gets the same 400 answer where the server supports
it (the ASGI ``websocket.http.response`` extension), else a closed handshake (403).
"""

from __future__ import annotations

import base64
import hashlib
import ipaddress
import json
import re
from collections.abc import Iterable

from starlette.applications import Starlette
from starlette.types import ASGIApp, Message, Receive, Scope, Send

#: headers a request may carry once at most
SINGLE_HEADERS = (b"cookie", b"origin", b"host")
#: a year, the usual HSTS lifetime
HSTS = b"max-age=31536000"
STYLE_ELEMENT = re.compile(r"<style[^>]*>(.*?)</style>", re.DOTALL | re.IGNORECASE)


async def refuse(scope: Scope, send: Send, message: str) -> None:
    """Answer 400 ``bad_request`` with ``message`` (HTTP, or a WebSocket handshake)."""
    body = json.dumps({"error": {"code": "bad_request", "message": message}}).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", b"%d" % len(body))]
    if scope["type"] == "http":
        await send({"type": "http.response.start", "status": 400, "headers": headers})
        await send({"type": "http.response.body", "body": body})
    elif "websocket.http.response" in scope.get("extensions", {}):
        await send({"type": "websocket.http.response.start", "status": 400, "headers": headers})
        await send({"type": "websocket.http.response.body", "body": body})
    else:
        await send({"type": "websocket.close", "code": 1008})


class RepeatedHeaders:
    """Refuses requests that repeat one of :data:`SINGLE_HEADERS`."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket"):
            seen: set[bytes] = set()
            for name, _value in scope["headers"]:
                name = name.lower()
                if name in SINGLE_HEADERS:
                    if name in seen:
                        header = name.decode().title()
                        await refuse(scope, send, f"the {header} header is sent more than once")
                        return
                    seen.add(name)
        await self.app(scope, receive, send)


def host_name(host: str) -> str:
    """The name of a ``Host`` header's value, without its port, in lower case.

    >>> host_name("LocalHost:8000"), host_name("[::1]:8000"), host_name("example.org.")
    ('localhost', '::1', 'example.org')
    """
    host = host.strip().lower()
    if host.startswith("["):
        return host[1 : host.find("]")] if "]" in host else host
    return host.rsplit(":", 1)[0].rstrip(".") if host.count(":") <= 1 else host


def is_ip(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


class AllowedHosts:
    """Refuses requests whose ``Host`` is none of ``allowed`` (names, ``*.suffix``,
    or ``*`` for any) and no IP address.  A request without ``Host`` (HTTP/1.0)
    passes: a browser always sends one."""

    def __init__(self, app: ASGIApp, allowed: Iterable[str]) -> None:
        self.app = app
        names = {host_name(a) for a in allowed if a.strip()}
        self.any = "*" in names
        self.suffixes = tuple(n[1:] for n in names if n.startswith("*."))
        self.names = frozenset(n for n in names if not n.startswith("*"))

    def allows(self, host: str) -> bool:
        name = host_name(host)
        return self.any or name in self.names or is_ip(name) or name.endswith(self.suffixes)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket"):
            host = next((v for k, v in scope["headers"] if k.lower() == b"host"), None)
            if host is not None and not self.allows(host.decode("latin-1")):
                await refuse(scope, send, "this site does not answer to that Host name")
                return
        await self.app(scope, receive, send)


def style_hashes(pages: Iterable[str]) -> list[str]:
    """The CSP sources (``'sha256-…'``) of the ``<style>`` elements of ``pages``."""
    found = []
    for page in pages:
        for css in STYLE_ELEMENT.findall(page):
            digest = base64.b64encode(hashlib.sha256(css.encode()).digest()).decode()
            found.append(f"'sha256-{digest}'")
    return sorted(set(found))


def content_security_policy(styles: Iterable[str] = ()) -> str:
    """The site's policy: everything from the site itself, no inline script, inline
    styles only those whose hash is in ``styles``, never framed.  (``connect-src
    'self'`` covers the site's own ws:// and wss:// addresses.)"""
    return "; ".join(
        [
            "default-src 'self'",
            "script-src 'self'",
            " ".join(["style-src 'self'", *styles]),
            "img-src 'self'",
            "connect-src 'self'",
            "object-src 'none'",
            "base-uri 'none'",
            "form-action 'self'",
            "frame-ancestors 'none'",
        ]
    )


#: an SVG opened by itself is a document: its own styles, nothing else
SVG_POLICY = b"default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'"


class SecurityHeaders:
    """Adds the security headers to every HTTP answer (those it sets itself win)."""

    def __init__(self, app: ASGIApp, policy: str) -> None:
        self.app = app
        self.common = [
            (b"content-security-policy", policy.encode()),
            (b"x-frame-options", b"DENY"),
            (b"x-content-type-options", b"nosniff"),
            (b"referrer-policy", b"same-origin"),
        ]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        extra = list(self.common)
        if scope.get("scheme") == "https":
            extra.append((b"strict-transport-security", HSTS))

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                present = {k.lower() for k, _v in headers}
                svg = any(k.lower() == b"content-type" and b"svg" in v for k, v in headers)
                for name, value in extra:
                    if name not in present:
                        if svg and name == b"content-security-policy":
                            value = SVG_POLICY
                        headers.append((name, value))
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_with_headers)


def guard_headers(
    app: Starlette, allowed_hosts: Iterable[str], styled_pages: Iterable[str]
) -> None:
    """Wrap ``app`` (outermost first): the security headers (outside even the
    server-error layer), the repeated headers' refusal, the Host check.
    ``styled_pages`` are the HTML pages whose ``<style>`` elements the policy allows."""
    app.add_middleware(AllowedHosts, allowed=tuple(allowed_hosts))
    app.add_middleware(RepeatedHeaders)
    policy = content_security_policy(style_hashes(styled_pages))
    build = app.build_middleware_stack

    def build_with_headers() -> ASGIApp:
        # outside Starlette's own outermost layer, whose 500 answers get them too
        return SecurityHeaders(build(), policy)

    app.build_middleware_stack = build_with_headers  # type: ignore[method-assign]
