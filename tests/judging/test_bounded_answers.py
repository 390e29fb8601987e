"""A server's answer costs the judge bounded memory whatever its encoding or size (issue 30 §4.5).

Each test starts a real HTTP server on 127.0.0.1 that sends a hostile answer
and runs the judge's own transport in a child process, whose peak resident
memory (VmHWM) is measured.
"""

from __future__ import annotations

import gzip
import struct
import zlib
from http.server import BaseHTTPRequestHandler

import pytest

from loopback import serve
from peak_memory import baseline_peak, run_measured

_MIB = 2**20
_IMPORTS = """
import asyncio, random, sys, httpx
from agenthorizon.judging.judges.openai_transport import post_chat
from agenthorizon.judging.judges.server_check import check_server
from agenthorizon.judging.retry import RetryPolicy
"""


def _zeros_gzip(mib: int) -> bytes:
    """A gzip member of ``mib`` MiB of zeros, built from one repeated deflate block (no compressing of it all)."""
    deflate = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS)
    block = deflate.compress(bytes(_MIB)) + deflate.flush(zlib.Z_FULL_FLUSH)  # a full flush: every block identical
    crc = 0
    for _ in range(mib):
        crc = zlib.crc32(bytes(_MIB), crc)
    trailer = struct.pack("<II", crc, (mib * _MIB) & 0xFFFFFFFF)
    return b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff" + block * mib + deflate.flush() + trailer


@pytest.fixture(scope="module")
def double_gzip_bomb() -> bytes:
    """A few KB that inflate, through two gzip layers, to 1 GiB."""
    return gzip.compress(_zeros_gzip(1024), 9)


class _OneAnswer:
    """A server on 127.0.0.1 that answers every GET and POST with ``headers`` and ``body`` (bytes or pieces)."""

    def __init__(self, headers: dict[str, str], body) -> None:
        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def answer(self):
                self.rfile.read(int(self.headers.get("content-length", 0)))
                self.send_response(200)
                for key, value in headers.items():
                    self.send_header(key, value)
                self.end_headers()
                try:
                    for piece in ([body] if isinstance(body, bytes) else body()):
                        self.wfile.write(piece)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client stopped reading: what the bound is for

            do_GET = do_POST = answer

        self.server, _ = serve(Handler)
        self.base_url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def _error_in_child(call: str, base_url: str) -> tuple[str, int]:
    """The error (``Type: message``, or ``"no error"``) of ``await CALL`` in a child with ``client`` and
    ``base_url`` set, and the child's peak memory."""
    program = f"""
async def main():
    base_url = sys.argv[1]
    async with httpx.AsyncClient() as client:
        try:
            await {call}
        except Exception as error:
            return f"{{type(error).__name__}}: {{error}}"
        return "no error"
_report(asyncio.run(main()))
"""
    return run_measured(_IMPORTS + program, base_url)


def _post_chat_in_child(base_url: str) -> tuple[str, int]:
    return _error_in_child(
        'post_chat(client, base_url + "/chat/completions", {"model": "m", "messages": []}, {}, timeout=120, '
        "max_output_bytes=16 * 2**20, retry=RetryPolicy(retries=0), rng=random.Random(0))", base_url)


@pytest.mark.slow
def test_a_doubly_gzipped_answer_is_refused_within_its_limit_in_bounded_memory(double_gzip_bomb: bytes) -> None:
    # Before the fix httpx inflated the inner layer in one piece: 1 GiB held at once (2,057 MiB more peak).
    assert len(double_gzip_bomb) < 16 * 1024
    server = _OneAnswer({"content-type": "application/json", "content-encoding": "gzip, gzip",
                         "content-length": str(len(double_gzip_bomb))}, double_gzip_bomb)
    try:
        error, peak = _post_chat_in_child(server.base_url)
    finally:
        server.close()
    grown = peak - baseline_peak(_IMPORTS)
    assert error.startswith("JudgeError: the response from http://127.0.0.1:"), error
    assert "gzip encoding (layer 2 of 2) inflates past the limit (256 MiB" in error
    assert grown < 64 * _MIB, f"the judge grew by {grown // _MIB} MiB reading a {len(double_gzip_bomb)}-byte answer"


@pytest.mark.slow
def test_a_gzipped_answer_within_the_limit_is_read_as_before() -> None:
    completion = (b'{"choices": [{"index": 0, "message": {"role": "assistant", "content": "'
                  + b"x" * 3_000_000 + b' {\\"success\\": true}"}, "finish_reason": "stop"}], '
                  b'"usage": {"prompt_tokens": 5, "completion_tokens": 7}}')
    body = zlib.compress(gzip.compress(completion))  # deflate over gzip
    server = _OneAnswer({"content-type": "application/json", "content-encoding": "gzip, deflate",
                         "content-length": str(len(body))}, body)
    program = """
async def main():
    async with httpx.AsyncClient() as client:
        completion, attempts = await post_chat(
            client, sys.argv[1] + "/chat/completions", {"model": "m", "messages": []}, {}, timeout=60,
            max_output_bytes=2**20, retry=RetryPolicy(retries=0), rng=random.Random(0))
    return [completion.text[-19:], completion.output_tokens, completion.truncated_bytes > 0, attempts]
_report(asyncio.run(main()))
"""
    try:
        result, _ = run_measured(_IMPORTS + program, server.base_url)
    finally:
        server.close()
    assert result == ['x {"success": true}', 7, True, 1]


@pytest.mark.slow
def test_an_answer_in_an_encoding_the_judge_did_not_ask_for_is_refused_naming_it() -> None:
    server = _OneAnswer({"content-type": "application/json", "content-encoding": "br", "content-length": "4"},
                        b"\x00\x00\x00\x00")
    try:
        error, _ = _post_chat_in_child(server.base_url)
    finally:
        server.close()
    assert "Content-Encoding 'br'; expected only gzip, deflate or identity" in error, error


@pytest.mark.slow
def test_the_preflight_refuses_a_400_mb_model_list_without_holding_it() -> None:
    # Before the fix the preflight read the whole /models answer and parsed it (1,330 MiB more peak).
    entry = b'{"id": "' + b"m" * 1000 + b'", "object": "model"}, '

    def pieces():
        yield b'{"object": "list", "data": ['
        for _ in range(400_000):
            yield entry
        yield b'{"id": "stub-model"}]}'

    server = _OneAnswer({"content-type": "application/json"}, pieces)
    try:
        error, peak = _error_in_child(
            'check_server(client, base_url, "stub-model", {}, timeout=120, key_variable="OPENAI_API_KEY")',
            server.base_url)
    finally:
        server.close()
    grown = peak - baseline_peak(_IMPORTS)
    assert error.startswith("PreflightError: openai judge: the /models answer of http://127.0.0.1:"), error
    assert "is larger than 8 MiB" in error
    assert grown < 64 * _MIB, f"the preflight grew by {grown // _MIB} MiB"
