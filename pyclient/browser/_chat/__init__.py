"""The chat: `Chat`, the facade and its one delegated listener, the marks of what changed, the
frame that draws them into the widgets, the commands a trusted click runs, the composer's
files, the history window and the stylesheet. Imports the core, `_page` and `_widgets`.
"""
