import ast, cProfile, pstats, io, time
from pyodide.http import pyfetch
from pyscript import document, window
src = await (await pyfetch(window.location.origin + "/main.py")).string()
code = compile(src, "main.py", "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
prof = cProfile.Profile()
t = time.perf_counter()
prof.enable()
result = eval(code, {"__name__": "__main__"})
if result is not None:
    await result
prof.disable()
out = io.StringIO()
pstats.Stats(prof, stream=out).sort_stats("tottime").print_stats(25)
window.console.log(f"MAIN {time.perf_counter()-t:.2f}s\n" + out.getvalue()[:6000])
