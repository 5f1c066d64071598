"""What people read: catalogs, escaping, Block Kit limits."""
