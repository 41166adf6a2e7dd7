from __future__ import annotations

import pytest

from .openai_server import OpenAIServer


@pytest.fixture()
def server(monkeypatch):
    for var in ("http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"):
        monkeypatch.delenv(var, raising=False)
    srv = OpenAIServer().start()
    yield srv
    srv.stop()


@pytest.fixture()
def make_client(server):
    from cvcheck.judge.cache import JudgeCache
    from cvcheck.judge.client import JudgeClient

    def make(**kw):  # a generous timeout: only tests about timeouts set a short one
        kw.setdefault("cache", JudgeCache(":memory:"))
        opts = dict(model="judge-x", base_url=server.base_url, api_key="sk-test-SECRET",
                    timeout_s=30.0, max_retries=2, backoff_s=0.01, max_backoff_s=0.05)
        opts.update(kw)
        return JudgeClient(**opts)

    return make
