"""Pure rules: no clock, no environment, no files, no database."""
