"""Read models and commands that drive a tick: the board, doctor, help requests (which run
the tick), session rollover, prune, and setting up a desk (init, cron and systemd)."""
