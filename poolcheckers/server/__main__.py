"""``python -m poolcheckers.server [--host H] [--port P] [--database-url URL]``."""

import sys

from poolcheckers.server.cli import serve_main

sys.exit(serve_main(sys.argv[1:]))
