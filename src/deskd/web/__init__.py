"""The supervisor console (``deskd serve``): server-rendered pages over the same services as
the CLI. Importing this package loads nothing heavy; ``app.create_app`` loads FastAPI."""
