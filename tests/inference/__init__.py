"""The inference service: its errors, keys and the digest's AI line."""
