"""Capability routing: work asked of a capability (``--capability``, an event's rule) goes to
the most available enabled role that declares it in the desk file (``capabilities = [...]``),
with a sentence saying why it beat the others; when no enabled role has it, a person is paged
and the work is held with the help request until a role gains the capability.

Its modules, by floor (``tests/test_layering.py`` holds each to its floor's rules):
``rules.py`` (core: pure) ranks the candidates (``choose``); ``store.py`` (store) is its SQL,
the open load per role and why work was routed (columns of ``store/schema_routing.py``);
``service.py`` (the engine floor) gathers each capable role's presence, load and what blocks
it, enqueues or assigns, pages a person, routes held work on each executing tick, and says
why routed work went where it did (the board, ``wake explain``).

What routes: ``deskd inbox enqueue`` and ``deskd task add`` with ``--capability`` and events
coming in over HTTP (``service/ops/events_in.py``).
"""
