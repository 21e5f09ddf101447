"""The desk basics every other use case stands on: the context (settings, desk file, database,
now), who is acting, the roles, the inbox and messages, presence and pauses."""
