"""The Home tab and link previews."""
