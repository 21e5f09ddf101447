"""Work that outlives a session: tasks and their derived demand, session hand-offs and the
desk-day rollover views, and what happens after a launch to the role's session rows."""
