// tooldeck inspect: the page. Plain JS, no build step, nothing fetched from elsewhere.
// Every piece of text from a tool, a model or a server reaches the DOM as a text node
// (el() below); no HTML is ever built from data.
"use strict";

const DIALECTS = ["openai", "responses", "anthropic", "gemini"];
const state = { info: null, platform: null, dialect: "openai", strict: null, filter: "", rows: null };
let loadoutTimer = null;

// -- DOM helpers -----------------------------------------------------------------------------

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (key === "text") node.textContent = String(value);
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

function fill(node, ...children) {
  node.replaceChildren(...children.flat(Infinity).filter((c) => c !== null && c !== undefined && c !== false));
}

function view(...children) {
  fill(document.getElementById("view"), ...children);
}

function json(value) {
  return JSON.stringify(value, null, 2);
}

function hashPart(text) {
  return encodeURIComponent(text);
}

// -- the API ---------------------------------------------------------------------------------

async function api(path, options) {
  const response = await fetch(path, { credentials: "same-origin", ...(options || {}) });
  let body = null;
  try {
    body = await response.json();
  } catch (err) {
    body = { error: `the server answered ${response.status} without JSON` };
  }
  if (!response.ok) {
    const message = body && body.error ? body.error : `HTTP ${response.status}`;
    throw new Error(message);
  }
  return body;
}

function post(path, data) {
  return api(path, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(data),
  });
}

function query(extra) {
  const params = new URLSearchParams();
  if (state.platform) params.set("platform", state.platform);
  for (const [k, v] of Object.entries(extra || {})) if (v !== null && v !== undefined) params.set(k, v);
  const text = params.toString();
  return text ? `?${text}` : "";
}

function failure(err) {
  return el("p", { class: "error", role: "alert" }, `Error: ${err.message || err}`);
}

// -- the loadout -----------------------------------------------------------------------------

function statusCell(status) {
  return el("td", { class: `status-${status}` }, status);
}

function loadoutRow(row) {
  return el(
    "tr",
    { "data-name": row.name, "data-status": row.status },
    el("td", {}, el("a", { href: `#/tool/${hashPart(row.name)}` }, row.name)),
    statusCell(row.status),
    el("td", {}, row.toolset),
    el("td", {}, row.source),
    el("td", {}, row.gate || ""),
    el("td", {}, row.reason || ""),
    el("td", { class: "num" }, row.tokens === null || row.tokens === undefined ? "" : row.tokens),
  );
}

function totals(rows) {
  const exposed = rows.filter((r) => r.status === "exposed");
  const deferred = rows.filter((r) => r.status === "deferred").length;
  const hidden = rows.filter((r) => r.status === "hidden").length;
  const tokens = exposed.reduce((sum, r) => sum + (r.tokens || 0), 0);
  return (
    `${rows.length} tools: ${exposed.length} exposed (${tokens} tokens, ${state.dialect}), ` +
    `${deferred} deferred, ${hidden} hidden`
  );
}

function switcher(label, names, chosen, pick) {
  return el(
    "div",
    { class: "group", role: "group", "aria-label": label },
    el("span", { class: "label" }, `${label}:`),
    names.map((name) =>
      el("button", { type: "button", "aria-pressed": name === chosen ? "true" : "false", onclick: () => pick(name) }, name),
    ),
  );
}

function dialectControls(rerender) {
  const strict = el("input", { type: "checkbox", id: "strict-mode", checked: state.strict });
  strict.addEventListener("change", () => {
    state.strict = strict.checked;
    rerender();
  });
  return [
    switcher("Dialect", DIALECTS, state.dialect, (name) => {
      state.dialect = name;
      rerender();
    }),
    el("label", { for: "strict-mode" }, strict, "strict mode"),
  ];
}

async function showLoadout() {
  const tbody = el("tbody", {});
  const summary = el("p", { class: "totals", "aria-live": "polite" });
  const filter = el("input", {
    type: "text",
    id: "filter",
    placeholder: "Filter or search by name",
    value: state.filter,
    autocomplete: "off",
  });
  const render = () => {
    const rows = state.rows || [];
    const wanted = state.filter.trim().toLowerCase();
    const shown = wanted ? rows.filter((r) => r.name.toLowerCase().includes(wanted)) : rows;
    tbody.replaceChildren(...shown.map(loadoutRow));
    summary.textContent = totals(rows) + (wanted ? ` — ${shown.length} shown` : "");
  };
  filter.addEventListener("input", () => {
    state.filter = filter.value;
    render();
  });
  const platforms = state.info.platforms;
  const heading = el("h1", {}, `Loadout — platform ${state.platform}`);
  const controls = el(
    "div",
    { class: "toolbar" },
    el("label", { for: "filter" }, "Filter — search by name"),
    filter,
    platforms.length > 1
      ? switcher("Platform", platforms, state.platform, (name) => {
          state.platform = name;
          state.rows = null;
          showLoadout();
        })
      : null,
    dialectControls(() => {
      state.rows = null;
      showLoadout();
    }),
  );
  const table = el(
    "table",
    { "aria-label": "Loadout" },
    el("thead", {}, el("tr", {}, ["name", "status", "toolset", "source", "gate", "reason", "tokens"].map((h) => el("th", { scope: "col" }, h)))),
    tbody,
  );
  const problem = el("div", {});
  view(heading, controls, summary, problem, table);
  const load = async () => {
    try {
      const rows = await api(`/api/loadout${query({ dialect: state.dialect, strict: state.strict ? "1" : "0" })}`);
      problem.replaceChildren();
      if (JSON.stringify(rows) !== JSON.stringify(state.rows)) {
        state.rows = rows;
        render();
      }
    } catch (err) {
      problem.replaceChildren(failure(err));
    }
  };
  if (state.rows) render();
  await load();
  // Checks that flip and MCP servers that change are seen without reloading the page.
  loadoutTimer = setInterval(() => {
    if (document.body.contains(table)) load();
  }, 4000);
}

// -- one tool --------------------------------------------------------------------------------

function typeOf(schema) {
  if (!schema || typeof schema !== "object") return "json";
  if (Array.isArray(schema.enum) && schema.enum.every((v) => typeof v === "string")) return "enum";
  let type = schema.type;
  if (Array.isArray(type)) type = type.find((t) => t !== "null");
  if (["string", "integer", "number", "boolean"].includes(type)) return type;
  return "json";
}

function fieldFor(name, schema, required, index) {
  const id = `arg-${index}`;
  const kind = typeOf(schema);
  let input;
  if (kind === "boolean") {
    input = el("input", { type: "checkbox", id, checked: schema.default === true });
  } else if (kind === "enum") {
    input = el(
      "select",
      { id },
      required ? null : el("option", { value: "" }, "(not given)"),
      schema.enum.map((v) => el("option", { value: v, selected: schema.default === v }, v)),
    );
  } else if (kind === "integer" || kind === "number") {
    input = el("input", { type: "number", id, step: kind === "integer" ? "1" : "any" });
    if (typeof schema.default === "number") input.value = String(schema.default);
  } else if (kind === "string") {
    input = el("input", { type: "text", id });
    if (typeof schema.default === "string") input.value = schema.default;
  } else {
    input = el("textarea", { id, placeholder: "JSON" });
    if (schema && schema.default !== undefined) input.value = json(schema.default);
  }
  input.dataset.kind = kind;
  input.dataset.name = name;
  if (required) input.setAttribute("aria-required", "true");
  const hint = [kind === "json" ? "JSON" : kind, required ? "required" : "optional", schema && schema.description]
    .filter(Boolean)
    .join(" · ");
  return el(
    "div",
    { class: "field" },
    el("label", { for: id }, name),
    input,
    el("span", { class: "hint" }, required ? el("span", { class: "required" }, "* ") : null, hint),
  );
}

function readForm(form, required) {
  const args = {};
  for (const input of form.querySelectorAll("[data-name]")) {
    const name = input.dataset.name;
    const kind = input.dataset.kind;
    if (kind === "boolean") {
      if (input.checked || required.has(name)) args[name] = input.checked;
      continue;
    }
    const text = input.value;
    if (text === "") {
      if (required.has(name) && kind === "string") args[name] = "";
      continue;
    }
    if (kind === "integer" || kind === "number") args[name] = Number(text);
    else if (kind === "json") {
      try {
        args[name] = JSON.parse(text);
      } catch (err) {
        throw new Error(`${name}: not JSON (${err.message})`);
      }
    } else args[name] = text;
  }
  return args;
}

function resultView(record) {
  const parts = [el("h2", {}, "Result")];
  if (record.ok) parts.push(el("p", { class: "ok" }, "ok"));
  else if (record.error) parts.push(el("p", { class: "error" }, `error: ${record.error.type}`));
  parts.push(el("pre", { role: "region", tabindex: "0", "aria-label": "Content" }, record.content));
  if (record.error) parts.push(el("pre", { role: "region", tabindex: "0", "aria-label": "Error envelope" }, json(record.error)));
  if (record.meta && Object.keys(record.meta).length) parts.push(el("pre", { role: "region", tabindex: "0", "aria-label": "Meta" }, json(record.meta)));
  return parts;
}

async function showTool(name) {
  const holder = el("div", {});
  view(el("p", { class: "muted" }, el("a", { href: "#/" }, "← Loadout")), el("h1", {}, name), holder);
  let tool;
  try {
    tool = await api(`/api/tools/${encodeURIComponent(name)}${query({ dialect: state.dialect, strict: state.strict ? "1" : "0" })}`);
  } catch (err) {
    holder.replaceChildren(failure(err));
    return;
  }
  const facts = el(
    "dl",
    { class: "meta" },
    ["status", "toolset", "source", "owner", "gate", "reason", "effects"]
      .filter((k) => tool[k] !== null && tool[k] !== undefined && tool[k] !== "")
      .map((k) => [el("dt", {}, k), el("dd", { class: k === "status" ? `status-${tool.status}` : null }, tool[k])]),
  );
  const schema = [];
  if (tool.entry) {
    schema.push(el("p", { class: "tokens" }, `${tool.tokens} tokens`));
    schema.push(el("pre", { role: "region", tabindex: "0", "aria-label": "Schema" }, json(tool.entry)));
  } else {
    schema.push(
      el("p", { class: "muted" }, `Not sent to the model (${tool.status}); the tool's own parameters:`),
      el("pre", { role: "region", tabindex: "0", "aria-label": "Schema" }, json(tool.parameters)),
    );
  }
  if (tool.strict_reason) schema.push(el("p", {}, `OpenAI strict mode not possible: ${tool.strict_reason}`));
  if (tool.schema_notes && tool.schema_notes.length) {
    schema.push(el("h3", {}, "What rendering changed"), el("ul", {}, tool.schema_notes.map((n) => el("li", {}, n))));
  } else if (tool.entry) {
    schema.push(el("p", { class: "muted" }, "Rendering changed nothing in this schema."));
  }

  const props = (tool.parameters && tool.parameters.properties) || {};
  const required = new Set((tool.parameters && tool.parameters.required) || []);
  const form = el("form", { "aria-label": "Call form", novalidate: true });
  const output = el("section", { "aria-label": "Result", "aria-live": "polite" });
  const button = el("button", { type: "submit", class: "primary" }, "Call");
  form.append(...Object.entries(props).map(([prop, sub], i) => fieldFor(prop, sub, required.has(prop), i)));
  if (!Object.keys(props).length) form.append(el("p", { class: "muted" }, "This tool takes no arguments."));
  form.append(button);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    let args;
    try {
      args = readForm(form, required);
    } catch (err) {
      output.replaceChildren(failure(err));
      return;
    }
    button.disabled = true;
    output.replaceChildren(el("p", { class: "muted" }, "Running…"));
    pollApprovals();
    try {
      const record = await post("/api/call", { name: tool.name, arguments: args, platform: state.platform });
      output.replaceChildren(...resultView(record));
    } catch (err) {
      output.replaceChildren(failure(err));
    } finally {
      button.disabled = false;
    }
  });

  fill(
    holder,
    facts,
    el("h2", {}, "Description"),
    el("div", { class: "description" }, tool.description || ""),
    el("h2", {}, `Schema as ${tool.dialect} receives it${tool.strict ? " (strict)" : ""}`),
    el("div", { class: "toolbar" }, dialectControls(() => showTool(name))),
    schema,
    el("h2", {}, "Try it"),
    form,
    output,
  );
}

// -- approvals and forms waiting in the page -------------------------------------------------

// The cards shown, by id: a poll adds the new ones and drops the answered ones, and leaves the
// others as they are (a form half filled in keeps what was typed).
const pendingCards = new Map();
let pollsStarted = 0;
let pollsShown = 0;
let formsMade = 0;

async function sendAnswer(card, problem, path, body) {
  for (const b of card.querySelectorAll("button")) b.disabled = true;
  problem.replaceChildren();
  try {
    await post(path, body);
  } catch (err) {
    problem.replaceChildren(failure(err));
    for (const b of card.querySelectorAll("button")) b.disabled = false;
    return;
  }
  pollApprovals();
}

function approvalCard(item) {
  const problem = el("div", {});
  const card = el(
    "div",
    { class: "card", role: "region", "aria-label": `Approval request for ${item.tool}` },
    el("h2", {}, `Approval needed: ${item.tool}`),
    el(
      "dl",
      { class: "meta" },
      el("dt", {}, "reason"),
      el("dd", {}, item.reason),
      el("dt", {}, "rule"),
      el("dd", {}, item.rule || "(none)"),
      item.subject ? [el("dt", {}, "command"), el("dd", {}, item.subject)] : null,
      el("dt", {}, "arguments"),
      el("dd", {}, json(item.arguments)),
    ),
  );
  const answer = (decision) => sendAnswer(card, problem, `/api/approvals/${encodeURIComponent(item.id)}`, { decision });
  card.append(
    el("button", { type: "button", class: "primary", onclick: () => answer("approve") }, "Approve"),
    " ",
    el("button", { type: "button", class: "danger", onclick: () => answer("deny") }, "Deny"),
    problem,
  );
  return card;
}

// The options of an enum field (enum with optional enumNames, or oneOf/anyOf of {const, title})
// or of a multi-select's items, as [value, title]; null when the field is no enum.
function optionsOf(prop) {
  const source = prop.type === "array" ? prop.items || {} : prop;
  if (Array.isArray(source.enum)) {
    const names = Array.isArray(source.enumNames) ? source.enumNames : [];
    return source.enum.map((v, i) => [String(v), String(names[i] === undefined ? v : names[i])]);
  }
  for (const key of ["oneOf", "anyOf"]) {
    if (Array.isArray(source[key])) {
      return source[key]
        .filter((o) => o && typeof o === "object")
        .map((o) => [String(o.const), String(o.title === undefined ? o.const : o.title)]);
    }
  }
  return null;
}

function formField(name, prop, required, id) {
  const options = optionsOf(prop);
  let input;
  let kind;
  if (prop.type === "array") {
    kind = "multi";
    const chosen = new Set(Array.isArray(prop.default) ? prop.default.map(String) : []);
    input = el("select", { id, multiple: true }, (options || []).map(([v, title]) => el("option", { value: v, selected: chosen.has(v) }, title)));
  } else if (options) {
    kind = "enum";
    const given = prop.default === undefined ? null : String(prop.default);
    input = el(
      "select",
      { id },
      given === null ? el("option", { value: "" }, required ? "(choose one)" : "(not given)") : null,
      options.map(([v, title]) => el("option", { value: v, selected: v === given }, title)),
    );
  } else if (prop.type === "boolean") {
    kind = "boolean";
    input = el("input", { type: "checkbox", id, checked: prop.default === true });
  } else if (prop.type === "integer" || prop.type === "number") {
    kind = prop.type;
    input = el("input", { type: "number", id, step: kind === "integer" ? "1" : "any", min: prop.minimum, max: prop.maximum });
    if (typeof prop.default === "number") input.value = String(prop.default);
  } else {
    kind = "string";
    input = el("input", { type: "text", id, autocomplete: "off" });
    if (typeof prop.default === "string") input.value = prop.default;
  }
  input.dataset.kind = kind;
  input.dataset.name = name;
  if (required) input.setAttribute("aria-required", "true");
  const bounds = [];
  if (prop.format) bounds.push(prop.format);
  if (prop.minLength !== undefined) bounds.push(`at least ${prop.minLength} characters`);
  if (prop.maxLength !== undefined) bounds.push(`at most ${prop.maxLength} characters`);
  if (prop.minimum !== undefined) bounds.push(`≥ ${prop.minimum}`);
  if (prop.maximum !== undefined) bounds.push(`≤ ${prop.maximum}`);
  const hint = [kind === "multi" ? "choose any" : kind, required ? "required" : "optional", ...bounds, prop.description]
    .filter((part) => part !== undefined && part !== null && part !== "")
    .join(" · ");
  return el(
    "div",
    { class: "field" },
    el("label", { for: id }, prop.title === undefined ? name : String(prop.title)),
    input,
    el("span", { class: "hint" }, required ? el("span", { class: "required" }, "* ") : null, hint),
  );
}

function readAnswer(form, required) {
  const content = {};
  for (const input of form.querySelectorAll("[data-name]")) {
    const name = input.dataset.name;
    const kind = input.dataset.kind;
    if (kind === "boolean") content[name] = input.checked;
    else if (kind === "multi") {
      const chosen = Array.from(input.selectedOptions).map((o) => o.value);
      if (chosen.length || required.has(name)) content[name] = chosen;
    } else if (input.value !== "") {
      content[name] = kind === "integer" || kind === "number" ? Number(input.value) : input.value;
    } else if (kind === "string" && required.has(name)) content[name] = "";
  }
  return content;
}

function formCard(item) {
  const schema = item.schema || {};
  const props = schema.properties || {};
  const required = new Set(schema.required || []);
  const made = ++formsMade;
  const problem = el("div", {});
  const form = el("form", { "aria-label": "Form fields", novalidate: true });
  const card = el(
    "div",
    { class: "card", role: "region", "aria-label": `Form from ${item.tool}` },
    el("h2", {}, `Question from ${item.tool}`),
    el("div", { class: "description" }, item.message),
    form,
  );
  const path = `/api/forms/${encodeURIComponent(item.id)}`;
  form.append(...Object.entries(props).map(([name, prop], i) => formField(name, prop || {}, required.has(name), `form-${made}-${i}`)));
  if (!Object.keys(props).length) form.append(el("p", { class: "muted" }, "This form has no fields."));
  form.append(
    el(
      "div",
      { class: "actions" },
      el("button", { type: "submit", class: "primary" }, "Accept"),
      el("button", { type: "button", class: "danger", onclick: () => sendAnswer(card, problem, path, { action: "decline" }) }, "Decline"),
      el("button", { type: "button", onclick: () => sendAnswer(card, problem, path, { action: "cancel" }) }, "Cancel"),
    ),
    problem,
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    sendAnswer(card, problem, path, { action: "accept", content: readAnswer(form, required) });
  });
  return card;
}

async function pollApprovals() {
  const mine = ++pollsStarted;
  let items;
  try {
    items = await api("/api/approvals");
  } catch (err) {
    return;
  }
  if (mine < pollsShown) return; // a later poll has answered already
  pollsShown = mine;
  const holder = document.getElementById("pending");
  const waiting = new Set(items.map((i) => i.id));
  for (const [id, card] of pendingCards) {
    if (!waiting.has(id)) {
      card.remove();
      pendingCards.delete(id);
    }
  }
  for (const item of items) {
    if (pendingCards.has(item.id)) continue;
    const card = item.kind === "form" ? formCard(item) : approvalCard(item);
    pendingCards.set(item.id, card);
    holder.append(card);
  }
}

// -- MCP servers, sessions, the audit log, checkpoints ----------------------------------------

function table(label, headers, rows) {
  return el(
    "table",
    { "aria-label": label },
    el("thead", {}, el("tr", {}, headers.map((h) => el("th", { scope: "col" }, h)))),
    el("tbody", {}, rows),
  );
}

async function showMcp() {
  view(el("h1", {}, "MCP servers"));
  try {
    const servers = await api("/api/mcp");
    const rows = servers.map((s) =>
      el(
        "tr",
        { "data-name": s.name },
        el("td", {}, s.name),
        el("td", {}, s.state),
        el("td", { class: s.error ? "error" : null }, s.error || ""),
        el("td", {}, s.tools.join(", ")),
        el("td", {}, (s.warnings || []).join("; ")),
      ),
    );
    view(
      el("h1", {}, "MCP servers"),
      servers.length
        ? table("MCP servers", ["name", "state", "error", "tools", "warnings"], rows)
        : el("p", {}, "No MCP servers configured (add mcp_servers: to the config)."),
    );
  } catch (err) {
    view(el("h1", {}, "MCP servers"), failure(err));
  }
}

function when(seconds) {
  return new Date(seconds * 1000).toISOString().replace("T", " ").slice(0, 19) + " UTC";
}

// -- calls of stored sessions waiting for approval (approvals.unattended: interrupt) -----------

let lastOutcome = null;

async function decide(item, card, problem, body) {
  for (const b of card.querySelectorAll("button")) b.disabled = true;
  problem.replaceChildren();
  try {
    const outcome = await post(`/api/sessions/${encodeURIComponent(item.session_id)}/decide`, { call_id: item.call_id, ...body });
    lastOutcome = `Session ${outcome.session_id} resumed: ${outcome.status}${outcome.text ? ` — ${outcome.text}` : ""}`;
  } catch (err) {
    problem.replaceChildren(failure(err));
    for (const b of card.querySelectorAll("button")) b.disabled = false;
    return;
  }
  showSessions();
}

function pendingCard(item) {
  const problem = el("div", {});
  const card = el(
    "div",
    { class: "card", role: "region", "aria-label": `Pending call ${item.call_id}` },
    el("h2", {}, `Waiting for approval: ${item.tool}`),
    el(
      "dl",
      { class: "meta" },
      el("dt", {}, "session"),
      el("dd", {}, el("a", { href: `#/sessions/${hashPart(item.session_id)}` }, item.title || item.session_id)),
      el("dt", {}, "call"),
      el("dd", {}, item.call_id),
      el("dt", {}, "reason"),
      el("dd", {}, item.reason || ""),
      el("dt", {}, "rule"),
      el("dd", {}, item.rule || "(none)"),
      el("dt", {}, "arguments"),
      el("dd", {}, json(item.arguments)),
    ),
  );
  const reason = el("input", { type: "text", "aria-label": "Reason for a denial" });
  const edited = el("textarea", { rows: 3, "aria-label": "Edited arguments (JSON)" });
  edited.value = json(item.arguments);
  const runEdited = () => {
    let args;
    try {
      args = JSON.parse(edited.value);
    } catch (err) {
      problem.replaceChildren(el("p", { class: "error" }, `The arguments are not JSON: ${err.message}`));
      return;
    }
    decide(item, card, problem, { decision: "edit", arguments: args });
  };
  card.append(
    el("button", { type: "button", class: "primary", onclick: () => decide(item, card, problem, { decision: "approve" }) }, "Approve"),
    " ",
    el("button", { type: "button", class: "danger", onclick: () => decide(item, card, problem, { decision: "deny", reason: reason.value }) }, "Deny"),
    " ",
    reason,
    el("details", {}, el("summary", {}, "Edit the arguments"), edited, el("button", { type: "button", onclick: runEdited }, "Run with these arguments")),
    problem,
  );
  return card;
}

async function showSessions() {
  try {
    const [sessions, waiting] = await Promise.all([api("/api/sessions"), api("/api/pending")]);
    const rows = sessions.map((s) =>
      el(
        "tr",
        {},
        el("td", {}, el("a", { href: `#/sessions/${hashPart(s.id)}` }, s.title || s.id)),
        el("td", {}, s.id),
        el("td", {}, s.status),
        el("td", { class: "num" }, s.messages),
        el("td", {}, s.model || ""),
        el("td", {}, when(s.updated_at)),
      ),
    );
    view(
      el("h1", {}, "Sessions"),
      lastOutcome ? el("p", { role: "status" }, lastOutcome) : null,
      waiting.length ? [el("h2", {}, "Waiting for approval"), waiting.map(pendingCard)] : null,
      sessions.length
        ? table("Sessions", ["session", "id", "status", "messages", "model", "updated"], rows)
        : el("p", {}, "No stored sessions yet (tooldeck run and chat store them)."),
    );
  } catch (err) {
    view(el("h1", {}, "Sessions"), failure(err));
  }
}

function messageView(m) {
  const parts = [el("div", { class: "who" }, m.role === "tool" ? `tool result: ${m.name || ""} (${m.tool_call_id || ""})` : m.role)];
  if (m.reasoning) parts.push(el("div", { class: "text reasoning" }, m.reasoning));
  if (m.content) parts.push(el("div", { class: m.is_error ? "text error" : "text" }, m.content));
  for (const c of m.tool_calls || []) {
    parts.push(el("div", { class: "call" }, `→ tool call ${c.name} ${c.arguments} (${c.id})`));
  }
  if (m.usage) parts.push(el("div", { class: "muted usage" }, usageText(m.usage)));
  return el("div", { class: `message role-${m.role}` }, parts);
}

// Token counts as `usage` carries them: the whole input, the part read from and written to the
// provider's prompt cache, the output.
function usageText(u) {
  return `${u.input_tokens} input (${u.cache_read_input_tokens} cache read, ${u.cache_creation_input_tokens} cache write), ${u.output_tokens} output tokens`;
}

async function showSession(id) {
  try {
    const s = await api(`/api/sessions/${encodeURIComponent(id)}`);
    const answers = s.messages.filter((m) => m.role === "assistant" && m.content && !(m.tool_calls || []).length);
    view(
      el("p", { class: "muted" }, el("a", { href: "#/sessions" }, "← Sessions")),
      el("h1", {}, `Session ${s.title || s.id}`),
      el("dl", { class: "meta" }, [
        [el("dt", {}, "id"), el("dd", {}, s.id)],
        [el("dt", {}, "status"), el("dd", {}, s.status)],
        [el("dt", {}, "model"), el("dd", {}, s.model || "")],
        [el("dt", {}, "tokens"), el("dd", { class: "usage" }, usageText(s.usage))],
        answers.length ? [el("dt", {}, "answer"), el("dd", {}, answers[answers.length - 1].content)] : null,
      ]),
      el("h2", {}, "Transcript"),
      s.messages.map(messageView),
    );
  } catch (err) {
    view(el("h1", {}, "Session"), failure(err));
  }
}

async function showAudit() {
  try {
    const entries = await api("/api/audit");
    const cols = ["time", "tool", "decision", "outcome", "scope", "rule", "subject", "reason", "note", "approver"];
    const rows = entries.map((e) => el("tr", {}, cols.map((c) => el("td", {}, e[c] === null || e[c] === undefined ? "" : e[c]))));
    view(
      el("h1", {}, "Approvals audit log"),
      entries.length ? table("Approvals audit log", cols, rows) : el("p", {}, "No approval decisions recorded yet."),
    );
  } catch (err) {
    view(el("h1", {}, "Approvals audit log"), failure(err));
  }
}

async function showCheckpoints() {
  try {
    const found = await api("/api/checkpoints");
    const rows = found.map((c) =>
      el(
        "tr",
        {},
        el("td", { class: "num" }, c.id),
        el("td", {}, when(c.time)),
        el("td", {}, c.tool),
        el("td", {}, c.session_id || ""),
        el("td", {}, `+${c.created} ~${c.modified} -${c.deleted}`),
        el("td", {}, c.paths.join(", ")),
      ),
    );
    view(
      el("h1", {}, "Checkpoints"),
      found.length
        ? table("Checkpoints", ["id", "time", "tool", "session", "changes", "paths"], rows)
        : el("p", {}, "No checkpoints for this workspace."),
    );
  } catch (err) {
    view(el("h1", {}, "Checkpoints"), failure(err));
  }
}

// -- routing ---------------------------------------------------------------------------------

async function route() {
  if (loadoutTimer !== null) {
    clearInterval(loadoutTimer);
    loadoutTimer = null;
  }
  const path = decodeURIComponent(location.hash.replace(/^#/, "") || "/");
  const page = path.split("/")[1] || "";
  for (const a of document.querySelectorAll("header nav a")) {
    const target = a.getAttribute("href").replace(/^#\//, "");
    if (target === page || (target === "" && page === "tool")) a.setAttribute("aria-current", "page");
    else a.removeAttribute("aria-current");
  }
  if (path.startsWith("/tool/")) return showTool(path.slice("/tool/".length));
  if (path === "/mcp") return showMcp();
  if (path === "/sessions") return showSessions();
  if (path.startsWith("/sessions/")) return showSession(path.slice("/sessions/".length));
  if (path === "/approvals") return showAudit();
  if (path === "/checkpoints") return showCheckpoints();
  return showLoadout();
}

async function start() {
  try {
    state.info = await api("/api/info");
  } catch (err) {
    view(failure(err));
    return;
  }
  state.platform = state.info.platform;
  state.strict = state.info.strict;
  window.addEventListener("hashchange", route);
  setInterval(pollApprovals, 800);
  pollApprovals();
  route();
}

document.addEventListener("DOMContentLoaded", start);
