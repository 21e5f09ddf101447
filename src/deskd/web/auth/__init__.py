"""The console's auth: who is asking, and how a supervisor gets in. ``DESKD_SUPERVISOR_AUTH_MODE``
picks the mode: ``simple`` (an access code buys a session cookie), ``signed`` (each request
carries an Ed25519 assertion made by ``deskd supervisor sign``) or ``hybrid`` (either).

How a request flows: every page depends on ``guard.reader`` (a live session or a signed
request, else the login page or a 401) and every action on ``guard.actor`` (a session with
its CSRF token, or a signed request whose nonce is burned once). ``guard`` also serves the
login form, the one-time login link and logout; a right code starts a session row in the
database (``service/ops/console_sessions.py``: logouts and throttling survive a restart) and
its cookie (``sessions``). The access code, the keys file and the nonces are
``service/ops/console.py``.

Its modules, all on the console's floor (``web/``: through the services, never a store
module), lightest first:

- ``sessions.py`` (stdlib): the signed, expiring session cookie with its CSRF token, and the
  bounded pool that checks access codes off the event loop;
- ``signed.py`` (``cryptography``, no FastAPI): making and verifying signed requests, shared
  with ``cli/supervisor.py``, the one module outside ``web/`` that may import it;
- ``guard.py`` (FastAPI): the principal of a request, the refusals the app maps to 303, 401,
  403 or 429, and ``/login``, ``/login/link``, ``/logout``.

Its command is ``deskd supervisor`` (``cli/supervisor.py``: keys, signing), in ``cli/``.
"""
