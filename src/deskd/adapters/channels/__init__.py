"""Channels a page goes out on: apprise (every service apprise knows) and the outbox."""
