// Page-side timing for bench/chat.py: one sample = one fresh thread (with or without a Chat),
// one `await thread.send(...)`, timed with performance.now(). While it runs, two monitors record
// the longest gap between setTimeout(0) ticks and between animation frames: how long the page
// could not respond. The chat path ends when the chat's element shows every expected text
// (and `marks` distinct "done#<i>#" results); only its text is read, never its classes, so any
// Chat that renders the thread's text and results qualifies.

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function shows(element, needles, marks) {
  const text = element.textContent;
  if (!needles.every((needle) => text.includes(needle))) return false;
  if (!marks) return true;
  return new Set(text.match(/done#\d+#/g) || []).size >= marks;
}

function withTimeout(promise, ms, what) {
  let timer;
  const late = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} took longer than ${ms} ms`)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

window.measure = async ({ url, text, chat, needles, marks, timeoutMs }) => {
  const id = await window.bench.prepare(url, chat);
  const element = document.getElementById(id);
  const gaps = { timeout: 0, frame: 0 };
  let running = true;
  let lastTick = performance.now();
  let lastFrame = lastTick;
  const tick = () => {
    const now = performance.now();
    gaps.timeout = Math.max(gaps.timeout, now - lastTick);
    lastTick = now;
    if (running) setTimeout(tick, 0);
  };
  const frame = () => {
    const now = performance.now();
    gaps.frame = Math.max(gaps.frame, now - lastFrame);
    lastFrame = now;
    if (running) requestAnimationFrame(frame);
  };
  setTimeout(tick, 0);
  requestAnimationFrame(frame);

  const started = performance.now();
  let error = null;
  let sent = null;
  let shown = null;
  try {
    await withTimeout(window.bench.send(id, text), timeoutMs, "thread.send()");
    sent = performance.now() - started;
    if (chat) {
      while (!shows(element, needles, marks)) {
        if (performance.now() - started > timeoutMs) {
          throw new Error(`the chat did not show the final text within ${timeoutMs} ms`);
        }
        await sleep(2);
      }
      shown = performance.now() - started;
    }
  } catch (exc) {
    error = String(exc);
  }
  running = false;
  const summary = JSON.parse(await window.bench.summary(id));
  summary.shown_in_dom = shows(element, needles, marks);
  await window.bench.dispose(id);
  return { sent, shown, gaps, summary, error };
};
