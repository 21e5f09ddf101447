"""Scheduling: when a wake hook fires (``at``, ``every``, ``cron`` in a timezone, with DST
rules of Debian cron), and how the tick itself is scheduled (a crontab line or a systemd
timer that runs ``deskd tick`` every minute for this desk, and whether it does).

How data flows: ``deskd hook add`` validates a schedule with ``rules`` and stores it as a
wake hook; each tick asks ``rules.due`` for the hooks to fire (``service/engine/hooks.py``).
``deskd cron-line`` and ``deskd timer install/print`` render the line or the units from
``service`` with absolute paths (cron and systemd start the tick with a bare environment);
``deskd timer status``, ``cron-line --check`` and the doctor read back what is installed and
how the last tick ended (``status``). Nothing here runs ``crontab`` or ``systemctl``.

Its modules, by floor (``tests/test_layering.py`` holds each to its floor's rules):

- ``rules.py`` (core: pure, no clock; croniter loaded with the first cron schedule): the
  schedule records, ``validate_*``, ``next_fire``, ``upcoming``, ``due``, the cron parser;
- ``service.py`` (service, ops floor): the crontab line and the systemd units rendered for
  this install, writing the units, and the refusals of scheduling the tick;
- ``status.py`` (service, ops floor): which schedules are installed, whether they tick this
  desk and database, and how their last run ended.

The commands are ``cli/schedule.py`` (``cron-line``, ``timer``) and ``cli/hook.py`` (wake
hooks), in ``cli/`` like every command module.
"""
