// sfn-emulator's web console: one page, routed by the URL's hash, that reads the console's JSON API
// and polls it every second, so what it shows follows the executions without reloading.
// Every action is a JSON POST on the same origin.
"use strict";

const API = "api/";
const CLOCK = "../clock";
const POLL_MS = 1000;
const EVENTS_PER_PAGE = 100;  // an execution's event table shows one page of its history at a time
const STATUSES = ["RUNNING", "SUCCEEDED", "FAILED", "TIMED_OUT", "ABORTED", "PENDING_REDRIVE"];

// The largest graph Mermaid is asked to draw (its own defaults, stated here so the console can say so).
const GRAPH_LIMITS = { maxTextSize: 50000, maxEdges: 500 };
mermaid.initialize({ startOnLoad: false, securityLevel: "strict", ...GRAPH_LIMITS });

// -- small helpers ---------------------------------------------------------------------------------

function h(tag, attributes, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (name.startsWith("on")) element.addEventListener(name.slice(2), value);
    else element.setAttribute(name, value === true ? "" : value);
  }
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    element.append(child instanceof Node ? child : String(child));
  }
  return element;
}

async function answered(response) {
  const body = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error(body.code ? `${body.code}: ${body.message}` : body.message || response.statusText);
  return body;
}

const getJson = (url) => fetch(url, { cache: "no-store" }).then(answered);
const postJson = (url, body) => fetch(url, {
  method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
}).then(answered);

function say(text, isError = false) {
  const message = document.getElementById("message");
  message.textContent = text;
  message.className = isError ? "error" : "";
  message.hidden = false;
}

async function act(action, body, done) {
  try {
    await postJson(API + action, body);
    say(done);
  } catch (error) {
    say(error.message, true);
  }
  await refresh(true);
}

const link = (hash, text) => h("a", { href: hash }, text);
const executionLink = (arn, name) => link(`#/execution/${encodeURIComponent(arn)}`, name || arn.split(":").pop());
const machineLink = (arn, name) => link(`#/state-machine/${encodeURIComponent(arn)}`, name || arn.split(":").pop());
const statusOf = (status) => h("span", { class: `status-${status}`, "data-status": status }, status);
const table = (headings, rows, attributes) =>
  h("table", attributes, h("thead", {}, h("tr", {}, headings.map((text) => h("th", {}, text)))), h("tbody", {}, rows));
const expandable = (key, label, text) =>
  h("details", { "data-keep": key }, h("summary", {}, label), h("pre", {}, text));

function seconds(ms) {
  return `${(ms / 1000).toFixed(3)} s`;
}

// -- routes --------------------------------------------------------------------------------------------

function currentRoute() {
  const [path, query] = location.hash.replace(/^#\/?/, "").split("?");
  const [page, ...rest] = path.split("/");
  return { page: page || "state-machines", arn: rest.length ? decodeURIComponent(rest.join("/")) : null,
           query: new URLSearchParams(query || "") };
}

const PAGES = {
  "state-machines": { read: () => getJson(API + "state-machines"), draw: drawStateMachines },
  "state-machine": { read: (route) => getJson(`${API}state-machine?arn=${encodeURIComponent(route.arn)}`), draw: drawStateMachine },
  "executions": { read: (route) => getJson(`${API}executions?${route.query}`), draw: drawExecutions },
  "execution": { read: readExecution, draw: drawExecution },
  "map-run": { read: (route) => getJson(`${API}map-run?arn=${encodeURIComponent(route.arn)}`), draw: drawMapRun },
  "waiting": { read: () => getJson(API + "waiting"), draw: drawWaiting },
};

// An execution's page reads its summary and one page of its events. Events never change once written,
// so the page shown is kept and only the events added since the last poll are read (by event id).
let eventPage = { arn: null, page: 0, events: [] };

async function readExecution(route) {
  const arn = encodeURIComponent(route.arn);
  const summary = await getJson(`${API}execution?arn=${arn}`);
  const pages = Math.max(1, Math.ceil(summary.eventCount / EVENTS_PER_PAGE));
  const asked = route.query.get("events");
  const page = asked === "last" ? pages : Math.min(Math.max(Number(asked) || 1, 1), pages);
  const first = (page - 1) * EVENTS_PER_PAGE;
  if (eventPage.arn !== route.arn || eventPage.page !== page || first + eventPage.events.length > summary.eventCount) {
    eventPage = { arn: route.arn, page, events: [] };  // another page, or another execution of that ARN (a reset)
  }
  const wanted = Math.min(EVENTS_PER_PAGE, summary.eventCount - first);
  if (eventPage.events.length < wanted) {
    const after = first + eventPage.events.length;
    const read = await getJson(`${API}events?arn=${arn}&after=${after}&limit=${EVENTS_PER_PAGE - eventPage.events.length}`);
    if (eventPage.arn === route.arn && eventPage.page === page && first + eventPage.events.length === after) {
      eventPage.events = eventPage.events.concat(read.events);
    }
  }
  return { ...summary, events: eventPage.events, page, pages, firstEventId: first + 1 };
}

// -- pages -----------------------------------------------------------------------------------------------

// A list shown whole is filtered where it stands, row by row, as its search field (which names the rows
// in `data-filters`) is typed in; a redraw (a poll) filters again with the kept text.
function filterRows(root, field) {
  const wanted = field.value.trim().toLowerCase();
  for (const row of root.querySelectorAll(field.dataset.filters)) {
    row.hidden = Boolean(wanted) && !row.firstChild.textContent.toLowerCase().includes(wanted);
  }
}

// The executions list is paged by the server: typing reads the matching page again (after a pause) and
// replaces the table and its page line, leaving the field, its focus and its caret where they are.
let typing = null;
function searchExecutions(query, text) {
  clearTimeout(typing);
  typing = setTimeout(async () => {
    if (currentRoute().page !== "executions") return;
    text ? query.set("name", text) : query.delete("name");
    query.delete("page");
    history.replaceState(null, "", `#/executions?${query}`);
    const route = currentRoute();
    const data = await PAGES.executions.read(route);
    if (location.hash !== `#/executions?${query}` || !document.getElementById("executions")) return;
    const drawn = h("div", {}, drawExecutions(data, route));
    for (const id of ["executions", "executions-pages"]) {
      document.getElementById(id).replaceWith(drawn.querySelector(`#${id}`));
    }
    shown = { key: location.hash, text: JSON.stringify(data) };
  }, 250);
}

function drawStateMachines(data) {
  const rows = data.stateMachines.map((m) => h("tr", { "data-arn": m.stateMachineArn },
    h("td", {}, machineLink(m.stateMachineArn, m.name)), h("td", {}, m.type), h("td", {}, m.account),
    h("td", {}, m.region), h("td", {}, m.versions.map((arn) => h("div", {}, arn.split(":").pop()))),
    h("td", {}, m.aliases.map((arn) => h("div", {}, arn.split(":").pop()))), h("td", {}, m.creationDate)));
  const search = h("input", { id: "machine-search", type: "search", placeholder: "name contains…", "data-keep": "machine-search",
    "data-filters": "#state-machines tbody tr", oninput: (e) => filterRows(document, e.target) });
  return [h("h1", {}, "State machines"),
    rows.length ? [h("div", { class: "toolbar" }, search),
      table(["Name", "Type", "Account", "Region", "Versions", "Aliases", "Created"], rows, { id: "state-machines" })]
      : h("p", { class: "muted" }, "No state machine yet: create one with CreateStateMachine.")];
}

function drawStateMachine(data) {
  const m = data.stateMachine;
  const facts = [["ARN", m.stateMachineArn], ["Type", m.type], ["Status", m.status], ["Created", m.creationDate],
    ["Role", m.roleArn]];
  return [h("h1", {}, m.name),
    h("div", { class: "toolbar" }, link(`#/executions?stateMachineArn=${encodeURIComponent(m.stateMachineArn)}`, "Executions")),
    table(["", ""], facts.map(([name, value]) => h("tr", {}, h("th", {}, name), h("td", {}, value)))),
    h("h2", {}, "Recent executions"), data.recentExecutions.length
      ? table(["Name", "Status", "Started", "Stopped"], data.recentExecutions.map((e) => h("tr", { "data-arn": e.executionArn },
        h("td", {}, executionLink(e.executionArn, e.name)), h("td", {}, statusOf(e.status)), h("td", {}, e.startDate),
        h("td", {}, e.stopDate || ""))), { id: "recent-executions" })
      : h("p", { class: "muted" }, m.type === "STANDARD" ? "None yet." : "Express executions are not listed."),
    h("h2", {}, "Started by rules and schedules"), data.triggers.length
      ? table(["Rule or schedule", "Kind", "Schedule or pattern", "Next firing"], data.triggers.map((t) => h("tr", { "data-arn": t.arn },
        h("td", {}, t.arn.split(":").pop()), h("td", {}, t.kind), h("td", {}, h("code", {}, t.expression)), h("td", {}, t.next || ""))),
        { id: "triggers" })
      : h("p", { class: "muted" }, "No EventBridge rule or schedule targets it."),
    h("h2", {}, "Graph"), h("div", { class: "graph", "data-graph": data.graph,
      "data-graph-of": `stateMachineArn=${encodeURIComponent(m.stateMachineArn)}` }),
    h("h2", {}, "Definition"), h("pre", { id: "definition" }, m.definition),
    h("h2", {}, "Versions"), data.versions.length
      ? h("ul", {}, data.versions.map((v) => h("li", {}, machineLink(v.stateMachineVersionArn, v.stateMachineVersionArn.split(":").slice(-2).join(":")), ` created ${v.creationDate}`)))
      : h("p", { class: "muted" }, "None published."),
    h("h2", {}, "Aliases"), data.aliases.length
      ? h("ul", {}, data.aliases.map((a) => h("li", {}, a.stateMachineAliasArn.split(":").pop(), ` created ${a.creationDate}`)))
      : h("p", { class: "muted" }, "None."),
    h("h2", {}, "Coverage"), drawCoverage(data.coverage)];
}

function drawCoverage(entries) {
  if (!entries.length) return h("p", { class: "muted" }, "No finished execution yet.");
  const categories = ["states", "transitions", "choiceRules", "catchers", "retriers"];
  return entries.map((entry) => table(["Item", "Covered", "Missed"], categories.filter((c) => entry[c]).map((c) =>
    h("tr", {}, h("td", {}, c), h("td", {}, `${entry[c].covered} of ${entry[c].total}`),
      h("td", {}, entry[c].missed.map((item) => JSON.stringify(item)).join(", ")))), { class: "coverage" }));
}

function drawExecutions(data, route) {
  const query = new URLSearchParams(route.query);
  const go = (changes) => {
    clearTimeout(typing);
    for (const [name, value] of Object.entries(changes)) value ? query.set(name, value) : query.delete(name);
    location.hash = `#/executions?${query}`;
  };
  const status = h("select", { id: "status-filter", onchange: (e) => go({ status: e.target.value, page: "" }) },
    h("option", { value: "" }, "any status"),
    STATUSES.map((s) => h("option", { value: s, selected: query.get("status") === s }, s)));
  const search = h("input", { id: "name-search", type: "search", placeholder: "name contains…", "data-keep": "search",
    value: query.get("name") || "", oninput: (e) => searchExecutions(query, e.target.value) });
  const rows = data.executions.map((e) => h("tr", { "data-arn": e.executionArn },
    h("td", {}, executionLink(e.executionArn, e.name)), h("td", {}, statusOf(e.status)),
    h("td", {}, machineLink(e.stateMachineArn)), h("td", {}, e.executionArn.split(":")[4]),
    h("td", {}, e.executionArn.split(":")[3]), h("td", {}, e.startDate), h("td", {}, e.stopDate || "")));
  const page = data.page;
  return [h("h1", {}, "Executions"),
    h("div", { class: "toolbar" }, status, search,
      query.get("stateMachineArn") ? h("span", {}, "of ", machineLink(query.get("stateMachineArn")),
        " ", h("button", { type: "button", onclick: () => go({ stateMachineArn: "", page: "" }) }, "all machines")) : null),
    table(["Name", "Status", "State machine", "Account", "Region", "Started", "Stopped"], rows, { id: "executions" }),
    h("div", { class: "toolbar", id: "executions-pages" },
      h("button", { type: "button", disabled: page <= 1, onclick: () => go({ page: String(page - 1) }) }, "Newer"),
      h("span", { id: "page" }, `Page ${page} of ${data.pages} (${data.total} executions)`),
      h("button", { type: "button", disabled: page >= data.pages, onclick: () => go({ page: String(page + 1) }) }, "Older"))];
}

function drawExecution(data, route) {
  const e = data.execution;
  const arn = e.executionArn;
  const earlier = data.pathLength - data.path.length;
  const outcome = e.status === "SUCCEEDED" ? [h("h2", {}, "Output"), h("pre", { id: "final-output" }, pretty(e.output))]
    : e.error || e.cause ? [h("h2", {}, "Error"), h("pre", { id: "final-error" }, `${e.error || ""}\n${pretty(e.cause || "")}`)]
    : [];
  const events = data.events.map((event) => h("tr", { "data-event-id": event.id },
    h("td", {}, event.id), h("td", {}, event.type), h("td", {}, event.state || ""), h("td", {}, event.timestamp),
    h("td", {}, seconds(event.sinceStartMs)),
    h("td", {}, Object.keys(event.details).length
      ? expandable(`event-${event.id}`, "details", Object.entries(event.details).map(([name, value]) =>
        `${name}: ${typeof value === "string" ? value : JSON.stringify(value, null, 2)}`).join("\n")) : "")));
  const toPage = (page) => () => {
    const query = new URLSearchParams(route.query);
    query.set("events", String(page));
    location.hash = `#/execution/${encodeURIComponent(arn)}?${query}`;
  };
  const last = data.firstEventId + data.events.length - 1;
  return [h("h1", {}, e.name, " ", h("span", { id: "execution-status" }, statusOf(e.status))),
    h("div", { class: "toolbar" },
      h("button", { id: "stop", type: "button", disabled: e.status !== "RUNNING",
        onclick: () => act("stop-execution", { executionArn: arn }, "Stop requested") }, "Stop"),
      h("button", { id: "redrive", type: "button", disabled: !["FAILED", "TIMED_OUT", "ABORTED"].includes(e.status),
        onclick: () => act("redrive-execution", { executionArn: arn }, "Redrive requested") }, "Redrive"),
      e.status === "RUNNING" ? null : h("a", { id: "save-as-test", class: "button", download: `${e.name}.zip`,
        href: `${API}test-case?arn=${encodeURIComponent(arn)}`,
        title: "Download this execution as a Step Functions Local mock configuration test case" }, "Save as test"),
      "State machine: ", machineLink(e.stateMachineArn)),
    table(["", ""], [["ARN", arn], ["Started by", startedBy(data.startedBy)], ["Started", e.startDate],
      ["Stopped", e.stopDate || ""], ["Redrives", e.redriveCount || 0]].map(([name, value]) =>
      h("tr", {}, h("th", {}, name), h("td", {}, value)))),
    h("h2", {}, "Input"), expandable("input", "input", pretty(e.input)),
    outcome,
    data.callbacks.length ? [h("h2", {}, "Waiting for a callback"), data.callbacks.map(callbackCard)] : null,
    h("h2", {}, "Graph"),
    h("p", { class: "path", id: "path" }, earlier ? `… ${earlier} earlier → ` : "", data.path.join(" → ")),
    h("div", { class: "graph", "data-graph": data.graph, "data-graph-of": `executionArn=${encodeURIComponent(arn)}` }),
    data.children.length ? [h("h2", {}, "Child executions"), h("ul", { id: "children" },
      data.children.map((c) => h("li", {}, executionLink(c.executionArn, c.name), " ", statusOf(c.status))))] : null,
    data.mapRuns.length ? [h("h2", {}, "Map runs"), h("ul", { id: "map-runs" },
      data.mapRuns.map((r) => h("li", {}, link(`#/map-run/${encodeURIComponent(r.mapRunArn)}`, r.mapRunArn.split(":").pop()))))] : null,
    h("h2", {}, "Events"),
    h("div", { class: "toolbar" },
      h("button", { id: "events-first", type: "button", disabled: data.page <= 1, onclick: toPage(1) }, "First"),
      h("button", { id: "events-previous", type: "button", disabled: data.page <= 1, onclick: toPage(data.page - 1) }, "Previous"),
      h("span", { id: "events-page" }, data.events.length
        ? `Events ${data.firstEventId}–${last} of ${data.eventCount} (page ${data.page} of ${data.pages})` : "No events"),
      h("button", { id: "events-next", type: "button", disabled: data.page >= data.pages, onclick: toPage(data.page + 1) }, "Next"),
      h("button", { id: "events-last", type: "button", disabled: data.page >= data.pages, onclick: toPage("last") }, "Last")),
    table(["ID", "Type", "State", "Timestamp", "Since start", "Details"], events, { id: "events" })];
}

function startedBy(by) {
  if (by.kind === "execution") return h("span", { id: "started-by" }, "execution ", executionLink(by.arn));
  if (by.kind === "api") return h("span", { id: "started-by" }, "an API call (StartExecution)");
  return h("span", { id: "started-by" }, `${by.kind} `, h("code", {}, by.arn));
}

function drawMapRun(data) {
  const run = data.mapRun;
  const rows = data.executions.map((e) => h("tr", {}, h("td", {}, executionLink(e.executionArn, e.name)),
    h("td", {}, statusOf(e.status)), h("td", {}, e.startDate), h("td", {}, e.stopDate || "")));
  return [h("h1", {}, "Map run ", run.mapRunArn.split(":").pop(), " ", statusOf(run.status)),
    h("p", {}, "Of execution ", executionLink(run.executionArn)),
    h("pre", {}, JSON.stringify({ itemCounts: run.itemCounts, executionCounts: run.executionCounts }, null, 2)),
    table(["Name", "Status", "Started", "Stopped"], rows)];
}

function callbackCard(c) {
  const key = c.taskToken.slice(0, 16);
  const field = (tag, name, attributes, text) => h(tag, { name, "data-keep": `${key}-${name}`, ...attributes }, text || "");
  const output = field("textarea", "output", { rows: 3, "aria-label": "output JSON" }, "{}");
  const error = field("input", "error", { placeholder: "error", "aria-label": "error" });
  const cause = field("input", "cause", { placeholder: "cause", "aria-label": "cause" });
  const send = (event, action, body, done) => { event.preventDefault(); act(action, { taskToken: c.taskToken, ...body }, done); };
  return h("div", { class: "card callback", "data-token": c.taskToken, "data-execution": c.executionArn },
    h("div", {}, executionLink(c.executionArn), c.stateName ? ` waits in ${c.stateName}` : ""),
    h("div", { class: "muted" }, "token ", h("code", {}, c.taskToken)),
    h("form", { class: "success", onsubmit: (e) => send(e, "send-task-success", { output: output.value }, "Task success sent") },
      output, h("button", {}, "Send success")),
    h("form", { class: "failure", onsubmit: (e) => send(e, "send-task-failure", { error: error.value || undefined, cause: cause.value || undefined }, "Task failure sent") },
      error, cause, h("button", {}, "Send failure")),
    h("form", { class: "heartbeat", onsubmit: (e) => send(e, "send-task-heartbeat", {}, "Heartbeat sent") },
      h("button", {}, "Send heartbeat")));
}

function drawWaiting(data) {
  const callbacks = data.callbacks.map(callbackCard);
  const tasks = data.activityTasks.map((t) => h("div", { class: "card activity-task", "data-activity": t.activityArn },
    h("div", {}, t.activityArn.split(":").pop(), " for ", executionLink(t.executionArn)),
    expandable(`task-${t.executionArn}`, "input", t.input),
    h("button", { type: "button", onclick: () => act("take-activity-task", { activityArn: t.activityArn },
      "Taken as worker sfn-emulator-console: answer it above") }, "Take as worker")));
  return [h("h1", {}, "Waiting work"),
    h("h2", {}, "Task tokens waiting for a callback"),
    callbacks.length ? callbacks : h("p", { class: "muted" }, "None."),
    h("h2", {}, "Activity tasks waiting for a worker"),
    tasks.length ? tasks : h("p", { class: "muted" }, "None."),
    h("p", { class: "muted" }, `Next timer: ${data.nextTimer || "none"}`)];
}

function pretty(text) {
  try { return JSON.stringify(JSON.parse(text), null, 2); } catch { return text || ""; }
}

// -- drawing and live refresh -----------------------------------------------------------------------------

let shown = null;  // what the page shows: the route and the data it was drawn from

function keptState(root) {
  const kept = new Map();
  for (const element of root.querySelectorAll("[data-keep]")) {
    kept.set(element.dataset.keep, element.tagName === "DETAILS" ? element.open : element.value);
  }
  return kept;
}

function restore(root, kept) {
  for (const element of root.querySelectorAll("[data-keep]")) {
    if (!kept.has(element.dataset.keep)) continue;
    if (element.tagName === "DETAILS") element.open = kept.get(element.dataset.keep);
    else element.value = kept.get(element.dataset.keep);
  }
}

// A graph Mermaid cannot draw (more transitions than it draws, a text too long) leaves a message in its
// place and the rest of the page working. The last drawing of each text is kept: a page that polls
// redraws a graph only when it changed.
let graphNumber = 0;
const drawings = new Map();
async function drawGraphs(root) {
  const kept = new Map();
  for (const holder of root.querySelectorAll("[data-graph]")) {
    const text = holder.dataset.graph;
    let drawing = drawings.get(text);
    if (drawing === undefined) {
      try {
        if (text.length > GRAPH_LIMITS.maxTextSize) {  // (Mermaid would draw its own complaint instead)
          throw new Error(`its text is ${text.length} characters long, more than the ${GRAPH_LIMITS.maxTextSize} Mermaid draws`);
        }
        drawing = { svg: (await mermaid.render(`graph-${++graphNumber}`, text)).svg };
      } catch (error) {
        drawing = { problem: String((error && error.message) || error) };
        document.getElementById(`dgraph-${graphNumber}`)?.remove();  // Mermaid's leftover of a failed drawing
      }
    }
    kept.set(text, drawing);
    if (drawing.svg !== undefined) {
      holder.innerHTML = drawing.svg;
      holder.dataset.drawn = "true";
    } else {
      holder.replaceChildren(h("p", { class: "graph-problem" }, "This graph cannot be drawn here (",
        drawing.problem, "). Its text: ", h("a", { href: graphLink(holder.dataset.graphOf), target: "_blank" }, "Mermaid"),
        ", ", h("a", { href: `${graphLink(holder.dataset.graphOf)}&format=dot`, target: "_blank" }, "DOT"), "."));
      holder.dataset.drawn = "false";
    }
  }
  drawings.clear();
  for (const [text, drawing] of kept) drawings.set(text, drawing);
}

const graphLink = (query) => `../graph?${query}`;

async function refresh(force = false) {
  const route = currentRoute();
  const page = PAGES[route.page] || PAGES["state-machines"];
  const key = location.hash;
  let data;
  try {
    data = await page.read(route);
  } catch (error) {
    say(error.message, true);
    return;
  }
  const text = JSON.stringify(data);
  if (key !== location.hash || (!force && shown && shown.key === key && shown.text === text)) return;
  const view = document.getElementById("view");
  if (!force && view.contains(document.activeElement) && document.activeElement.matches("input, textarea")) {
    return;  // someone is typing: redraw after they leave the field or act
  }
  const kept = shown && shown.key === key ? keptState(view) : new Map();
  const next = h("div", { "data-page": route.page }, page.draw(data, route));
  restore(next, kept);
  for (const field of next.querySelectorAll("[data-filters]")) filterRows(next, field);
  await drawGraphs(next);
  if (key !== location.hash) return;
  view.replaceChildren(next);
  shown = { key, text };
  for (const nav of document.querySelectorAll("[data-nav]")) nav.classList.toggle("current", nav.dataset.nav === route.page);
}

// -- clock -------------------------------------------------------------------------------------------------

function showClock(clock) {
  document.getElementById("clock-now").textContent = clock.now;
  const mode = document.getElementById("clock-mode");
  if (document.activeElement !== mode) mode.value = clock.mode;
}

async function moveClock(request, done) {
  try {
    showClock(await request());
    say(done);
  } catch (error) {
    say(error.message, true);
  }
  await refresh(true);
}

document.getElementById("clock-mode").addEventListener("change", (event) =>
  moveClock(() => postJson(CLOCK, { mode: event.target.value }), `Clock mode: ${event.target.value}`));
document.getElementById("clock-advance").addEventListener("click", () => {
  const advance = Number(document.getElementById("clock-seconds").value);
  moveClock(() => postJson(CLOCK, { advance }), `Clock advanced by ${advance} s`);
});
document.getElementById("clock-next-timer").addEventListener("click", () =>
  moveClock(() => postJson(API + "advance-clock-to-next-timer", {}), "Clock moved to the next timer"));

async function poll() {
  try {
    showClock(await getJson(CLOCK));
    await refresh();
  } finally {
    setTimeout(poll, POLL_MS);
  }
}

window.addEventListener("hashchange", () => {
  clearTimeout(typing);  // a search typed before going elsewhere is not run after
  document.getElementById("message").hidden = true;
  refresh(true);
});
poll();
