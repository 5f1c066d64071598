"""What the bot keeps about a person: Home's button that shows it, and the Erase button."""
