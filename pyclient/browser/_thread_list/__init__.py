"""`ThreadList`: an agent's saved threads beside its chat, opened, started, renamed and deleted,
with its words for titles and times. Imports the core, `_page` and `_chat`.
"""
