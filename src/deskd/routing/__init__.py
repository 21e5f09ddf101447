"""Capability routing: work asked of a capability (``--capability``, an event's rule) goes to
the most available enabled role that declares it in the desk file (``capabilities = [...]``),
with a sentence saying why it beat the others; when no enabled role has it, a person is paged
and the work is held with the help request until a role gains the capability.

How data flows: ``service.route`` gathers each capable role's presence, open load and what
blocks it (paused, its host not ticking); ``rules.choose`` ranks them; the item or task is
written with its capability and why (``store``, columns of the migration
``store/schema_routing.py``); the board and ``wake explain`` read that why back. Each
executing tick routes held work (``service.route_held_work``).

Its modules, by floor (``tests/test_layering.py`` holds each to its floor's rules):

- ``rules.py`` (core: pure, no clock, no database): ``Candidate``, ``Routing``, ``choose``,
  the capability name's shape;
- ``store.py`` (store: stdlib, store and core only): its SQL, one function per statement;
- ``service.py`` (service, engine floor: may import the desk, work and engine services): the
  use cases, reading (ranking, why routed work went where it did) and writing (enqueue,
  assign, page a person, route held work).

What routes: ``deskd inbox enqueue`` and ``deskd task add`` with ``--capability`` (command
modules stay in ``cli/``) and events coming in over HTTP (``service/ops/events_in.py``).
"""
