"""Link previews of what people paste in a conversation."""
