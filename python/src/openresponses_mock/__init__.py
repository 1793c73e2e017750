"""Start the openresponses-mock server (a mock of the Open Responses API) from Python tests.

::

    from openresponses_mock import MockServer

    with MockServer() as mock:
        session = mock.session()
        session.enqueue({"steps": [{"type": "message", "text": "Hello."}]})
        # OpenAI(base_url=mock.base_url, api_key="test", default_headers=session.headers)

The pytest plugin (``openresponses_mock.plugin``) gives the fixtures ``openresponses_mock``
and ``mock_session``.
"""

from ._async import AsyncMockServer, AsyncMockSession
from ._errors import AdminError, MockServerError, VerifyError
from ._find import NodeNotFoundError, ServerNotFoundError, find_node, find_server
from ._mock import MockServer, MockSession, serve_args

__all__ = [
    "AdminError",
    "AsyncMockServer",
    "AsyncMockSession",
    "MockServer",
    "MockServerError",
    "MockSession",
    "NodeNotFoundError",
    "ServerNotFoundError",
    "VerifyError",
    "find_node",
    "find_server",
    "serve_args",
]
