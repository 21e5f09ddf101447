"""The hook relay: one long-lived process per host of a PostgreSQL desk that runs the session
hook's database work on a small pool, so the hook (a new process on every tool call) never
imports psycopg nor opens a connection of its own. SQLite desks need none.

How a call flows: an agent's tool call runs ``deskd-session-hook``; on a PostgreSQL desk
``hook.relayed`` sends one JSON line to ``run/relay.sock``; ``server`` checks it (same uid,
same desk and database, same deskd version: another version is refused and the relay exits)
and runs ``hook.surface`` (the very function the hook runs alone) in a transaction of its own
on a pooled connection (``psycopg_pool``), sending the hook's output just before COMMIT. A
hook that finds no relay, or is refused (by its deadline at the latest), works alone.

Its one switch is ``DESKD_HOOK_RELAY`` (``auto``: the executing tick starts a relay when
agents run and none answers; ``off``: the operator runs ``deskd relay`` or goes without).

Its modules, by floor (``tests/test_layering.py`` holds each to its floor's rules):

- ``server.py`` (adapters: may import the hook, store, paths): the socket, the request
  checks, the pool and each call in its own transaction, the idle exit, ``stop``;
- ``start.py`` (service, engine floor: may import the desk, paging and engine services, and
  ``server``): the executing tick starting a relay, with an agent's environment and no secret.

The hook's half (``relayed``, ``RELAY_WAIT_S``) stays in the stdlib-only ``deskd/hook.py``;
the command, ``deskd relay``, in ``cli/session_hook.py``. ``{"status": true}`` sent to the
socket answers the relay's counters.
"""
