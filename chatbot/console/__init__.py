"""The terminal game: a private table against CPU players, moves chosen by number."""
