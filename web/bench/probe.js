// bench/blocking.py installs this in every page before any of the page's scripts (Playwright's
// add_init_script), so that it sees the page's main thread from navigation on:
//
// - every long task (PerformanceObserver "longtask", buffered): start and duration, ms since
//   navigation start;
// - every long animation frame ("long-animation-frame": a frame over 50 ms, rendering included,
//   which long tasks leave out), with the scripts that ran in it (what called them, their source,
//   their forced style and layout) and its own style and layout time: what the long tasks were;
// - a 10 ms setInterval ticker: each tick's lateness (gap since the last tick minus 10 ms), i.e.
//   how long a page script waited for the main thread;
// - "ready": the first tick at which the page is usable (<html data-pyclient="ready"> and, for
//   the `data-bench-chats` chats the page declares, each chat's message input and Send button
//   present and enabled);
// - the timeStamp of every click on a chat's Send button (the event's creation time).
//
// `__probe.waitShown(selector, needles)` resolves once the chat in `selector` has status
// "idle" and its text contains every needle (texts the send's answer brings), checked by a
// MutationObserver on the chat's subtree (once per task that changed it), and the next frame
// has been rendered: with performance.now() in the first task after that frame.
(() => {
  if (window.__probe) return;
  const INTERVAL = 10;
  const probe = (window.__probe = { longTasks: [], frames: [], ticks: [], ready: null, clicks: [] });

  try {
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) probe.longTasks.push([entry.startTime, entry.duration]);
    }).observe({ type: "longtask", buffered: true });
  } catch (error) {
    probe.error = String(error);
  }
  try {
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) {
        const end = entry.startTime + entry.duration;
        probe.frames.push({
          start: entry.startTime, duration: entry.duration, blocking: entry.blockingDuration,
          // the frame's own style and layout (from styleAndLayoutStart to its end)
          layout: entry.styleAndLayoutStart ? end - entry.styleAndLayoutStart : 0,
          scripts: entry.scripts.map((script) => ({
            duration: script.duration, invoker: script.invoker, type: script.invokerType,
            source: script.sourceURL, fn: script.sourceFunctionName, at: script.sourceCharPosition,
            forced: script.forcedStyleAndLayoutDuration,
          })),
        });
      }
    }).observe({ type: "long-animation-frame", buffered: true });
  } catch (error) {
    probe.frameError = String(error);
  }

  const usable = () => {
    const root = document.documentElement;
    if (!root || root.dataset.pyclient !== "ready") return false;
    const chats = document.querySelectorAll(".pyclient-chat");
    if (chats.length < Number(root.dataset.benchChats || 0)) return false;
    for (const chat of chats) {
      const input = chat.querySelector("input[name=message]");
      const send = chat.querySelector(".pyclient-send");
      if (!input || !send || input.disabled || send.disabled) return false;
    }
    return true;
  };

  let last = performance.now();
  setInterval(() => {
    const now = performance.now();
    probe.ticks.push(now, now - last - INTERVAL);
    last = now;
    if (probe.ready === null && usable()) probe.ready = now;
  }, INTERVAL);

  addEventListener("click", (event) => {
    if (event.target instanceof Element && event.target.closest(".pyclient-send")) probe.clicks.push(event.timeStamp);
  }, true);

  probe.waitShown = (selector, needles) => new Promise((resolve) => {
    const chat = document.querySelector(`${selector} .pyclient-chat`);
    const shown = () => chat.dataset.status === "idle" && needles.every((needle) => chat.textContent.includes(needle));
    const check = () => {
      if (shown()) {
        observer.disconnect();
        // Shown: the first task after the frame that lays it out and paints it.
        requestAnimationFrame(() => setTimeout(() => resolve(performance.now()), 0));
      }
    };
    const observer = new MutationObserver(check);
    observer.observe(chat, { subtree: true, childList: true, characterData: true, attributes: true });
  });

  // Figures of a window [from, to] (ms since navigation start): long tasks that started in it,
  // their total blocking time (each one's duration over 50 ms), the longest; the ticker's worst
  // lateness over the ticks whose wait overlaps the window; the long animation frames that
  // started in it.
  probe.window = (from, to) => {
    const tasks = probe.longTasks.filter(([start]) => start >= from && start <= to);
    let lateness = 0;
    for (let i = 0; i < probe.ticks.length; i += 2) {
      const [at, late] = [probe.ticks[i], probe.ticks[i + 1]];
      if (at >= from && at - late - INTERVAL <= to) lateness = Math.max(lateness, late);
    }
    return {
      tasks: tasks.length,
      tbt: tasks.reduce((sum, [, duration]) => sum + Math.max(0, duration - 50), 0),
      longest: tasks.reduce((most, [, duration]) => Math.max(most, duration), 0),
      lateness,
      list: tasks,
      frames: probe.frames.filter((frame) => frame.start >= from && frame.start <= to),
    };
  };
})();
