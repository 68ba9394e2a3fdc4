// Page-side timing for bench/chat.py: one sample = one fresh thread (with or without a Chat),
// one `await thread.send(...)`, timed with performance.now(). While it runs, two monitors record
// the longest gap between setTimeout(0) ticks and between animation frames: how long the page
// could not respond. The chat path ends when the chat's element shows every expected text
// (and `marks` distinct "done#<i>#" results); only its text is read, never its classes, so any
// Chat that renders the thread's text and results qualifies. PerformanceObservers record the
// longest task on the main thread during the sample (the browser's "longtask" entries: 50 ms
// and longer; 0 when none was) and the longest rendering step of a frame ("long-animation-frame"
// entries, from their renderStart to their end: the animation-frame callbacks, where a Chat
// draws, then style, layout and paint; 0 when no frame took 50 ms).

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
  let longest = 0;
  let longestFrame = 0;
  const note = (entries) => {
    for (const entry of entries) {
      if (entry.entryType === "longtask") longest = Math.max(longest, entry.duration);
      else if (entry.renderStart > 0) {
        longestFrame = Math.max(longestFrame, entry.startTime + entry.duration - entry.renderStart);
      }
    }
  };
  const tasks = new PerformanceObserver((list) => note(list.getEntries()));
  tasks.observe({ type: "longtask" });
  const frames = new PerformanceObserver((list) => note(list.getEntries()));
  frames.observe({ type: "long-animation-frame" });

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
  await sleep(0);  // the last task's entry is queued after it ends
  note(tasks.takeRecords());
  note(frames.takeRecords());
  tasks.disconnect();
  frames.disconnect();
  gaps.task = longest;
  gaps.render = longestFrame;
  const summary = JSON.parse(await window.bench.summary(id));
  summary.shown_in_dom = shows(element, needles, marks);
  await window.bench.dispose(id);
  return { sent, shown, gaps, summary, error };
};
