"""The retry policy against a local HTTP server standing in for a proxy in front of the API
(it answers an HTML 502): GET is retried, DELETE is not, and the last answer is raised as
``StablepayError`` although its body is no envelope."""

from __future__ import annotations

import http.server
import threading
from collections.abc import Iterator

import pytest

from stablepay import RetryInfo, Stablepay, StablepayError
from stablepay.api.settlement_wallets import list_wallets, revoke_wallet


@pytest.fixture
def proxy() -> Iterator[tuple[str, list[str]]]:
    seen: list[str] = []

    class BadGateway(http.server.BaseHTTPRequestHandler):
        def answer(self) -> None:
            seen.append(self.command)
            body = b"<html><body>502 Bad Gateway</body></html>"
            self.send_response(502)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        do_GET = do_DELETE = answer

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.HTTPServer(("127.0.0.1", 0), BadGateway)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_port}", seen
    server.shutdown()


def test_a_get_is_retried_and_a_delete_is_not(proxy: tuple[str, list[str]]) -> None:
    base_url, seen = proxy
    retries: list[RetryInfo] = []
    with Stablepay(
        api_key="svc_sk_test_x", base_url=base_url, max_retries=2, max_retry_delay_secs=0.01, on_retry=retries.append
    ) as sp:
        with pytest.raises(StablepayError) as raised:
            sp.call(list_wallets.sync_detailed)
        assert (raised.value.status, raised.value.code) == (502, "api_error")
        assert "without an error envelope" in raised.value.message
        assert seen == ["GET", "GET", "GET"]
        assert [r.status for r in retries] == [502, 502]
        seen.clear()
        with pytest.raises(StablepayError):
            sp.call(revoke_wallet.sync_detailed, id="wal_x")
        assert seen == ["DELETE"], "a DELETE's first try may have worked: not retried"
