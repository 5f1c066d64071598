"""What an operator runs: check, shell, serve, the container, the chart, Redis topologies."""
