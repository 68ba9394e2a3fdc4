// Boot progress for PyScript pages: shows what is loading and how far along it is until
// Python marks the page ready (document.documentElement.dataset.pyclient = "ready").
// PyScript reports its steps as `py:progress` events ("Loading Pyodide", "Loaded packages"…).
const STEPS = [
  "Loading Pyodide", "Loaded Pyodide", "Loading packages", "Loaded packages",
  "Loading files", "Loaded files", "Starting Python", "Ready",
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

document.addEventListener("py:progress", ({ detail }) => show(String(detail)));
// Python runs; everything from here on is pyclient importing its modules.
document.addEventListener("py:ready", () => show("Starting Python"));
new MutationObserver(() => {
  if (document.documentElement.dataset.pyclient === "ready") {
    show("Ready");
    performance.mark("pyclient-ready");
    box.hidden = true;
    console.info(`pyclient ready in ${Math.round(performance.now() - started)} ms`);
  }
}).observe(document.documentElement, { attributes: true, attributeFilter: ["data-pyclient"] });
show("Loading PyScript");
