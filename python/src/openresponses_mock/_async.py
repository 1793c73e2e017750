"""``AsyncMockServer``: ``MockServer`` for asyncio test suites. Each call runs in a worker
thread (``asyncio.to_thread``), so the event loop never waits on the server."""

from __future__ import annotations

import asyncio
from typing import Any, Dict, List, Mapping, Optional

from ._mock import _KEEP, MockServer, MockSession, Scenario, Turn


class _AsyncControls:
    _sync: Any

    async def requests(self) -> List[Dict[str, Any]]:
        return await asyncio.to_thread(self._sync.requests)

    async def enqueue(self, *turns: Turn) -> int:
        return await asyncio.to_thread(self._sync.enqueue, *turns)

    async def use(self, scenario: Scenario, times: Optional[int] = None) -> str:
        return await asyncio.to_thread(self._sync.use, scenario, times)

    async def reset(self) -> None:
        await asyncio.to_thread(self._sync.reset)

    async def expectations(self) -> List[Dict[str, Any]]:
        return await asyncio.to_thread(self._sync.expectations)

    async def verify(self) -> List[Dict[str, Any]]:
        return await asyncio.to_thread(self._sync.verify)

    async def limits(self, rpm: Any = _KEEP, tpm: Any = _KEEP, budget_usd: Any = _KEEP) -> Dict[str, Any]:
        return await asyncio.to_thread(self._sync.limits, rpm, tpm, budget_usd)

    async def usage(self) -> Dict[str, Any]:
        return await asyncio.to_thread(self._sync.usage)

    @property
    def base_url(self) -> str:
        return str(self._sync.base_url)

    @property
    def url(self) -> str:
        return str(self._sync.url)


class AsyncMockSession(_AsyncControls):
    """``MockSession`` with coroutine methods."""

    def __init__(self, session: MockSession) -> None:
        self._sync = session
        self.id = session.id
        self.headers = session.headers


class AsyncMockServer(_AsyncControls):
    """``MockServer`` with coroutine methods: ``async with AsyncMockServer() as mock:``.
    Takes ``MockServer``'s options."""

    def __init__(self, **options: Any) -> None:
        self._sync = MockServer(**options)

    async def start(self) -> "AsyncMockServer":
        await asyncio.to_thread(self._sync.start)
        return self

    async def close(self) -> None:
        await asyncio.to_thread(self._sync.close)

    async def __aenter__(self) -> "AsyncMockServer":
        return await self.start()

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    @property
    def port(self) -> int:
        return int(self._sync.port)

    @property
    def server(self) -> MockServer:
        """The synchronous handle underneath."""
        server: MockServer = self._sync
        return server

    def session(self, id: Optional[str] = None, headers: Optional[Mapping[str, str]] = None) -> AsyncMockSession:
        return AsyncMockSession(self._sync.session(id, headers))
