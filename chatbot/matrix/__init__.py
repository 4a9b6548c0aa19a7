"""The Matrix adapter (matrix-nio): rooms are chats, numbered replies and reactions are buttons."""
