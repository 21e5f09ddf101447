"""The ``deskd`` command line: one module per noun, loaded only when its command runs."""
