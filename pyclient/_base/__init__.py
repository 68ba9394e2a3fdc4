"""The ground floor: pyclient's error tree, JSON read within limits, JSON Patch, abort signals, ids,
the stores a thread saves to, the listener list and lazy exports. Imports nothing of pyclient's:
every other floor stands on it.
"""
