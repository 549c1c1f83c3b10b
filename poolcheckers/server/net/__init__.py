"""What the server does at the connection and header level, before any route: deadlines
and limits per connection and per client address (:mod:`.connections`), and the
checks and answers every request gets (:mod:`.headers`)."""
