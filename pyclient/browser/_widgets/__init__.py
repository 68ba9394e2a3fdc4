"""The chat's widgets, each building its nodes once and updating them from the thread's state:
bubbles and their message bars, tool cards with approval bars, interrupt and activity cards,
forms, thinking sections, subagent groups, the step line, the list of items in history order,
with their pure rules beside them. Imports the core and `_page`.
"""
