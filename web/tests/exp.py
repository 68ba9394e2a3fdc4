import json, traceback, time
from pyscript import document, window
from pyclient import Agent, client_tool
from pyclient.browser import Chat
from pyclient.browser._document import page_document
import traceback

@client_tool
def tick(n: int) -> str:
    """Tick once."""
    return f"tick {n}"

agent = Agent("worker", url="/agent", client_tools=[tick])
chat = Chat(agent.thread("#chat"), document.querySelector("#chat"))
reads = {}
doc = page_document()
orig = doc.real
def real(node):
    key = "".join(traceback.format_stack(limit=4)[:2])
    reads[key] = reads.get(key, 0) + 1
    return orig(node)
doc.real = real
def stats():
    return json.dumps({"batches": doc.batches, "reads": doc.reads, "where": sorted(reads.items(), key=lambda kv: -kv[1])[:4]})
window.stats = stats
document.documentElement.dataset.pyclient = "ready"
import cProfile, pstats, io
prof2 = cProfile.Profile()
def start():
    prof2.enable()
def stop():
    prof2.disable()
    out = io.StringIO()
    pstats.Stats(prof2, stream=out).sort_stats("tottime").print_stats(25)
    return out.getvalue()
window.pstart = start
window.pstop = stop
