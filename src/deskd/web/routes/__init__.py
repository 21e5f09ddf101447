"""One router per page group; actions are POSTs in ``actions.py``."""
