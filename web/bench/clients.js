// The other clients the bench scripts compare pyclient with, timed page-side with performance.now():
// - window.measureClient({client, url, timeoutMs}) reads one text stream with `client`:
//   "agui" (@ag-ui/client's HttpAgent.runAgent, bundled from npm by bench/agui_client.py),
//   "jsfloor" (fetch reader, SSE split, JSON.parse, join: the least JS can do),
//   "pyfloor" / "pyvalid" (the same in the page's Python, window.bench.floor; "pyvalid" with
//   ag-ui's TypeAdapter(Event).validate_json). Returns {ms, text, events, error}.
// - window.jsToolLoop({url, rounds}) is the hand-written tool loop on HttpAgent: runAgent, run
//   `bench_mark` for each call, append the tool messages, runAgent again, until a run ends
//   without calls. Returns {ms, text, results, error}.
import { HttpAgent } from "/bench/agui-client.mjs";

const USER = { id: "bench-user", role: "user", content: "bench" };
const REQUEST = JSON.stringify({
  threadId: "bench", runId: "bench-floor", state: {}, tools: [], context: [], forwardedProps: {},
  messages: [USER],
});
// The page tool of bench/streams.py, as the JS loop advertises it.
const BENCH_MARK = {
  name: "bench_mark",
  description: "Mark one of many parallel calls done.",
  parameters: { type: "object", properties: { index: { type: "integer" } }, required: ["index"] },
};

function withTimeout(promise, ms, what) {
  let timer;
  const late = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} took longer than ${ms} ms`)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

async function jsFloor(url) {
  const response = await fetch(url, {
    method: "POST", body: REQUEST,
    headers: { "content-type": "application/json", accept: "text/event-stream" },
  });
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  const parts = [];
  let buffer = "";
  let events = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    const blocks = (buffer + decoder.decode(value, { stream: true })).split("\n\n");
    buffer = blocks.pop(); // an incomplete event waits for the next chunk
    for (const block of blocks) {
      if (!block.startsWith("data: ")) continue;
      events += 1;
      const event = JSON.parse(block.slice(6));
      if (event.type === "TEXT_MESSAGE_CONTENT") parts.push(event.delta);
    }
  }
  return { text: parts.join(""), events };
}

function lastText(agent) {
  const last = agent.messages[agent.messages.length - 1];
  return last && last.role === "assistant" ? last.content : null;
}

async function agui(url) {
  const agent = new HttpAgent({ url, threadId: "bench", initialMessages: [USER] });
  await agent.runAgent({ runId: "bench-agui" });
  return { text: lastText(agent), events: null };
}

const CLIENTS = {
  agui,
  jsfloor: jsFloor,
  pyfloor: async (url) => JSON.parse(await window.bench.floor(url, false)),
  pyvalid: async (url) => JSON.parse(await window.bench.floor(url, true)),
};

window.measureClient = async ({ client, url, timeoutMs }) => {
  const started = performance.now();
  try {
    const { text, events } = await withTimeout(CLIENTS[client](url), timeoutMs, client);
    return { ms: performance.now() - started, text, events, error: null };
  } catch (exc) {
    return { ms: null, text: null, events: null, error: String(exc) };
  }
};

window.jsToolLoop = async ({ url, timeoutMs }) => {
  const started = performance.now();
  const agent = new HttpAgent({ url, threadId: "bench", initialMessages: [USER] });
  let results = 0;
  try {
    await withTimeout((async () => {
      for (;;) {
        const { newMessages } = await agent.runAgent({ tools: [BENCH_MARK] });
        const calls = newMessages.flatMap((m) => (m.role === "assistant" && m.toolCalls) || []);
        if (!calls.length) return;
        for (const call of calls) {
          const { index } = JSON.parse(call.function.arguments);
          agent.addMessage({ id: `bench-result-${call.id}`, role: "tool", toolCallId: call.id, content: `done#${index}#` });
          results += 1;
        }
      }
    })(), timeoutMs, "the JS tool loop");
    return { ms: performance.now() - started, text: lastText(agent), results, error: null };
  } catch (exc) {
    return { ms: null, text: lastText(agent), results, error: String(exc) };
  }
};
