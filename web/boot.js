// Boot progress for PyScript pages: shows what is loading and how far along it is until
// Python marks the page ready (document.documentElement.dataset.pyclient = "ready").
// PyScript reports its steps as `py:progress` events on window ("Loading Pyodide"…).
// PyScript's own steps, in order (others it reports are shown but not counted), then ours.
const STEPS = [
  "Loading Pyodide", "Loading Packages Graph", "Loading Storage", "Loading interpreter",
  "Loaded interpreter", "Loaded Pyodide", "Starting Python", "Ready",
];
const box = document.getElementById("boot");
const label = box.querySelector(".boot-label");
const bar = box.querySelector("progress");
bar.max = STEPS.length;
let done = 0;
const started = performance.now();

function show(step) {
  const index = STEPS.indexOf(step);
  if (index >= 0) done = Math.max(done, index + 1);
  bar.value = done;
  const percent = Math.round((100 * done) / STEPS.length);
  label.textContent = `${step}… (${done}/${STEPS.length}, ${percent}%)`;
}

addEventListener("py:progress", ({ detail }) => show(String(detail)));
// Python runs; everything from here on is pyclient importing its modules.
// PyScript fires py:ready on the script element; capture it on its way down.
addEventListener("py:ready", () => show("Starting Python"), { capture: true });
new MutationObserver(() => {
  if (document.documentElement.dataset.pyclient === "ready") {
    show("Ready");
    performance.mark("pyclient-ready");
    box.hidden = true;
    console.info(`pyclient ready in ${Math.round(performance.now() - started)} ms`);
  }
}).observe(document.documentElement, { attributes: true, attributeFilter: ["data-pyclient"] });
show("Loading PyScript");
