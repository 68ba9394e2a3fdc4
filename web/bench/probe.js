// bench/blocking.py installs this in every page before any of the page's scripts (Playwright's
// add_init_script), so that it sees the page's main thread from navigation on:
//
// - every long task (PerformanceObserver "longtask", buffered): start and duration, ms since
//   navigation start;
// - a 10 ms setInterval ticker: each tick's lateness (gap since the last tick minus 10 ms), i.e.
//   how long a page script waited for the main thread;
// - "ready": the first tick at which the page is usable (<html data-pyclient="ready"> and, for
//   the `data-bench-chats` chats the page declares, each chat's message input and Send button
//   present and enabled);
// - the timeStamp of every click on a chat's Send button (the event's creation time).
//
// `__probe.waitShown(selector, needles)` resolves once the chat in `selector` has status
// "idle" and its text contains every needle (texts the send's answer brings), with that
// moment's performance.now(); checked by a MutationObserver on the chat's subtree, i.e. once
// per task that changed it.
(() => {
  if (window.__probe) return;
  const INTERVAL = 10;
  const probe = (window.__probe = { longTasks: [], ticks: [], ready: null, clicks: [] });

  try {
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) probe.longTasks.push([entry.startTime, entry.duration]);
    }).observe({ type: "longtask", buffered: true });
  } catch (error) {
    probe.error = String(error);
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
        resolve(performance.now());
      }
    };
    const observer = new MutationObserver(check);
    observer.observe(chat, { subtree: true, childList: true, characterData: true, attributes: true });
  });

  // Figures of a window [from, to] (ms since navigation start): long tasks that started in it,
  // their total blocking time (each one's duration over 50 ms), the longest, the ticker's worst lateness.
  probe.window = (from, to) => {
    const tasks = probe.longTasks.filter(([start]) => start >= from && start <= to);
    let lateness = 0;
    for (let i = 0; i < probe.ticks.length; i += 2) {
      if (probe.ticks[i] >= from && probe.ticks[i] <= to + INTERVAL) lateness = Math.max(lateness, probe.ticks[i + 1]);
    }
    return {
      tasks: tasks.length,
      tbt: tasks.reduce((sum, [, duration]) => sum + Math.max(0, duration - 50), 0),
      longest: tasks.reduce((most, [, duration]) => Math.max(most, duration), 0),
      lateness,
      list: tasks,
    };
  };
})();
