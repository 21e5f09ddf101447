"""Side effects: the clock, locks, agent CLIs, channels, retries."""
