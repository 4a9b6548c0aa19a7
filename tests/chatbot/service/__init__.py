"""The application service end to end: commands and presses in, outbox views out."""
