"""The Palace Eye application: the `palace` command, the dashboard and the game log."""
