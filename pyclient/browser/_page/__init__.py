"""The page seen from either thread: the window, the document the chat builds its nodes in (the
page's own on the main thread, the mirror of `_mirror/` in a worker), the node helpers and the
marking of invisible characters, and awaiting a page API's promise. The one seam to the DOM:
imports no core floor and no other browser folder.
"""
