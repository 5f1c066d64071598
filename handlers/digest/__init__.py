"""The daily digest of dossiers: the /digest command, the job that counts and posts, its messages and chart."""
