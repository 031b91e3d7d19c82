"""The agent service (`tiller serve`): HTTP, SSE and WebSocket over agents, solves and
approvals, for many users. `tiller.server.app.create_app(settings)` is the ASGI app;
`tiller.server.settings` says how it is configured."""
