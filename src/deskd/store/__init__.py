"""Every SQL statement deskd runs. Standard library only: the session hook imports this."""
