"""Process-level pieces: configuration, wiring, HTTP server, command line, scheduler."""
