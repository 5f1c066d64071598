"""Rooms, planned meetings, invitations and sharing: what happens, as data for the surfaces."""
