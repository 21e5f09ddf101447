"""Use cases: each takes a DeskContext (settings, desk, database, now) and does one thing.

The subpackages are stacked; a module imports only from its own subpackage or from a lower
floor, never from a peer on its floor or from above (tests/test_layering.py holds this):

    ops                                board, doctor, help, session rollover, prune, init, schedules
    engine                             the tick: snapshot, plan recording, dispatch, executor,
                                       wake hooks, wake explain
    work | meetings | paging           tasks and sessions; bounded meetings; pages to people
    desk                               context, identity, roles, inbox, messages, presence, pauses
"""
