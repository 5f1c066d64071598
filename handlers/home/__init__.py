"""The App Home tab: the person's rooms and a control to create one."""
