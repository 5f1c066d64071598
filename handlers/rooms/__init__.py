"""Video rooms: the /room command, the buttons on a room message, how rooms are shown and named."""
