"""The operator's command line beside `serve`: check, shell, digest, keys, and the words they use."""
