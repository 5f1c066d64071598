"""Video rooms: create, list, show, and every way the room service can refuse."""
