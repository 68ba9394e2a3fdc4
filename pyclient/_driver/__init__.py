"""The driver: the loop that does what the machine asks over the network (requests, events,
handler tasks, stop, fail), answering calls and interrupts, telling listeners, and keeping a
thread across page loads (restore, the lock between tabs, saves as a journal). Imports
`_conversation` and the floors below it.
"""
