"""Where a thread lives: the `Platform` the core is handed (transport, store, lock, idle time, JS
values), the element binding of threads and registrations to DOM elements over any DOM, and
the scopes that decide which registration serves a tool name. Imports `_base`, `_wire`, `_tools`.
"""
