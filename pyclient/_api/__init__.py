"""The facades a page author holds: `Agent`, `Thread` (with its mixins of one idea each),
`SavedThreads` and the renderer tables. They wire the driver and the machine together and
import every core floor; nothing in the core imports them.
"""
