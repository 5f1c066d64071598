"""The inference service (Albert / OpenGateLLM): chat completions, API keys, the bot's active key."""
