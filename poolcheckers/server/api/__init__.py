"""The HTTP and WebSocket API: routers, request/response schemas, the error shape.
Routers validate and delegate to the domain services; they run no SQL."""
