"""What `serve` runs: the HTTP door, the Bolt app and its installs, the helper processes, the schedules."""
