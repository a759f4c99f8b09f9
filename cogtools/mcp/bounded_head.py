"""uvicorn's httptools protocol (llhttp, a C parser: a sixth less of the server's instructions per
call than h11, 3.9M -> 3.3M under callgrind), with what is not the body of a request (its head, a
chunked body's trailers) held to :data:`MAX_HEAD` bytes, as h11 holds it: uvicorn's httptools
protocol keeps a head whole, however long (200 MB of one header grew the server by 300 MB, and
the parser's joining of the pieces holds the event loop).

uvicorn has no public setting for this (``h11_max_incomplete_event_size`` is h11's alone), so
:class:`BoundedHead` subclasses its protocol class, which is not public: it was checked against
the versions :data:`UVICORN_CHECKED` names (the ``mcp`` extra holds uvicorn to them, and a test
holds the two equal and the installed uvicorn within them).
"""

from __future__ import annotations

import typing as t

try:
    import httptools
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
except ImportError:  # (no httptools: uvicorn's h11 protocol, which bounds a head itself)
    HTTPTOOLS = False
else:
    HTTPTOOLS = True

#: The uvicorn versions whose httptools protocol :class:`BoundedHead` was checked against (its
#: hooks, ``data_received`` and ``send_400_response`` read the same from 0.31.1 to 0.54.0; the
#: tests of the head's bound ran on 0.54.0).
UVICORN_CHECKED = ">=0.31.1,<0.55"
#: The most bytes a request's head (request line and headers), or its trailers, may take, as
#: h11 holds them.
MAX_HEAD = 16 * 1024
#: The bytes a chunk's framing (its size line and the line end after it) may take, over and
#: above the head's.
CHUNK_FRAMING = 32


def web_protocol() -> t.Any:
    """The HTTP protocol uvicorn serves with: :class:`BoundedHead` when httptools is installed,
    else h11."""
    return BoundedHead if HTTPTOOLS else "h11"


if HTTPTOOLS:

    class BoundedHead(HttpToolsProtocol):
        """uvicorn's httptools protocol, with the head counted twice: as it arrives, the bytes
        of each write that the parser did not hand on as body (less the framing of the chunks it
        read), since the last request that ended (which bounds what a head kept before its end
        can take); and once whole, its request line and headers."""

        unbodied = 0  # the bytes of the request being read that were not its body
        fed_body = 0  # of the write being parsed: the body, the chunks read, whether a request ended
        fed_chunks = 0
        ended = False

        def on_url(self, url: bytes) -> None:
            super().on_url(url)
            if len(self.url) > MAX_HEAD:
                raise httptools.HttpParserError("request head too large")

        def on_headers_complete(self) -> None:
            if len(self.url) + sum(len(name) + len(value) + 4 for name, value in self.headers) > MAX_HEAD:
                raise httptools.HttpParserError("request head too large")  # (uvicorn answers 400)
            super().on_headers_complete()

        def on_body(self, body: bytes) -> None:
            self.fed_body += len(body)
            super().on_body(body)

        def on_chunk_header(self) -> None:
            self.fed_chunks += 1

        def on_message_complete(self) -> None:
            self.ended = True
            super().on_message_complete()

        def data_received(self, data: bytes) -> None:
            self.fed_body = self.fed_chunks = 0
            self.ended = False
            super().data_received(data)
            if self.ended:  # (what of this write follows the request that ended is not counted)
                self.unbodied = 0
                return
            self.unbodied += max(0, len(data) - self.fed_body - CHUNK_FRAMING * self.fed_chunks)
            if self.unbodied > MAX_HEAD and not self.transport.is_closing():
                self.send_400_response("Request head too large")
