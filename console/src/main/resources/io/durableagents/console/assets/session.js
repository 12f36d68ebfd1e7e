// One session: what it is, its transcript, its pending approvals, its checkpoints and business
// state, lineage, and the actions (send, cancel, fork, compare). Server-sent events keep it live:
// each checkpoint re-fetches the page's data, deltas show the model's output while it runs.
import {
  api, el, enc, sessionHref, safeExternalUrl, replaceChildren, showError, clearMessage,
  loadIdentity, messageEl, syncApprovalCards, statusBadge, timeEl, number, text, pretty,
  prettyPre, isTime,
} from './console.js';

const sessionId = readSessionId();
const base = '/api/sessions/' + enc(sessionId);

const $ = (id) => document.getElementById(id);
const statusNode = $('session-status');

// The step of the latest checkpoint seen, and of the model turn the live deltas belong to: the
// deltas end with the checkpoint of their own step (or a later one), never with an earlier step's
// checkpoint that arrives after the turn began streaming (a tool batch saved just before it).
let checkpointStep = null;
let liveStep = null;

function readSessionId() {
  const prefix = '/sessions/';
  const path = location.pathname;
  const rest = path.startsWith(prefix) ? path.slice(prefix.length).replace(/\/+$/, '') : '';
  try {
    return decodeURIComponent(rest);
  } catch {
    return rest;
  }
}

// ---- Loading -----------------------------------------------------------------------------------

async function loadSession() {
  try {
    const answer = await api(base);
    clearMessage($('session-error'));
    renderSession(answer || {});
  } catch (e) {
    if (e.status === 404) setStatus('unknown');
    if (e.status !== 401) showError($('session-error'), e.status === 404 ? new Error(`No session "${sessionId}".`) : e);
  }
}

async function loadHistory() {
  try {
    const answer = await api(base + '/history');
    renderTimeline((answer && answer.entries) || []);
  } catch (e) {
    if (e.status !== 401) {
      const line = el('li', { class: 'form-message' });
      showError(line, e);
      replaceChildren($('timeline'), line);
    }
  }
}

let refreshTimer = null;
/** Checkpoints can come in bursts; one re-fetch after the burst is enough. */
function refreshSoon() {
  clearTimeout(refreshTimer);
  refreshTimer = setTimeout(() => {
    loadSession();
    loadHistory();
  }, 300);
}

// ---- Rendering ---------------------------------------------------------------------------------

function renderSession(answer) {
  const session = answer.session || {};
  const live = answer.live || null;
  setStatus((live && live.status) || session.status);
  if (checkpointStep === null) {
    const step = live && typeof live.checkpointStep === 'number' ? live.checkpointStep : session.lastStep;
    if (typeof step === 'number') checkpointStep = step;
  }
  renderFacts(session, live);
  renderTemporalLink(answer.temporalUrl);
  renderTranscript(answer.transcript || []);
  renderApprovals(answer.approvals || [], live);
  const state = answer.businessState !== undefined ? answer.businessState : live && live.businessState;
  $('business-state').textContent = state === null || state === undefined ? 'none' : pretty(state);
  renderLineage(answer.lineage || {}, session);
}

function setStatus(status) {
  const value = status || 'unknown';
  statusNode.textContent = value;
  statusNode.dataset.status = value;
}

function renderFacts(session, live) {
  const usage = (live && live.usage) || {};
  const input = session.inputTokens !== undefined ? session.inputTokens : usage.inputTokens;
  const output = session.outputTokens !== undefined ? session.outputTokens : usage.outputTokens;
  const facts = [
    ['Agent', text(session.agent || (live && live.agent))],
    ['Run', text(session.currentRun !== undefined ? session.currentRun : live && live.run)],
    ['Workflow', text((live && live.lifecycle) || session.lifecycle || 'open')],
    ['Reset to', text((live && live.resetTo) || session.resetTo || '-')],
    ['Step', text(session.lastStep)],
    ['Messages', number(session.messageCount)],
    ['Tokens', `${number(input)} in / ${number(output)} out`],
    ['Updated', timeEl(session.updatedAt)],
  ];
  if (live && live.concurrencyKey) {
    // A queued run waits for the key's lease: its place is 1 when it runs next.
    const place = live.status === 'queued' && typeof live.queuePlace === 'number'
      ? ` · queued at place ${live.queuePlace}` : '';
    facts.push(['Concurrency key', text(live.concurrencyKey + place)]);
  }
  replaceChildren($('session-facts'), facts.map(([name, value]) =>
    el('div', { class: 'fact' }, el('dt', {}, name), el('dd', {}, value))));
}

function renderTemporalLink(url) {
  const link = $('temporal-link');
  const safe = safeExternalUrl(url);
  if (safe) {
    link.href = safe;
    link.hidden = false;
  } else {
    link.removeAttribute('href');
    link.hidden = true;
  }
}

function renderTranscript(messages) {
  const node = $('transcript');
  // Rebuilt on every refresh (nothing in it takes input); stay at the bottom when the reader was.
  const nearBottom = window.innerHeight + window.scrollY >= document.body.scrollHeight - 40;
  replaceChildren(node, messages.length ? messages.map(messageEl) : el('p', { class: 'muted' }, 'No messages yet.'));
  if (nearBottom && node.dataset.rendered) $('live').scrollIntoView({ block: 'end' });
  node.dataset.rendered = 'true';
}

function renderApprovals(approvals, live) {
  const pending = approvals.filter((a) => a.status === 'pending').map((a) => ({ sessionId, ...a }));
  // The live status can know of an approval the projection has not recorded yet.
  const waiting = live && live.approval;
  if (waiting && waiting.approvalId && !approvals.some((a) => a.approvalId === waiting.approvalId)) {
    pending.push({ sessionId, status: 'pending', ...waiting });
  }
  const section = $('session-approvals');
  const list = $('approvals');
  // A decision resumes the run: show its effect without waiting for the next checkpoint event.
  syncApprovalCards(list, pending, { onDecided: refreshSoon });
  // Keep the section while a card shows something (a decision just made, or a pending one).
  section.hidden = list.querySelectorAll('article.approval').length === 0;

  const decided = approvals.filter((a) => a.status && a.status !== 'pending');
  $('decided-section').hidden = decided.length === 0;
  replaceChildren($('decided'), decided.map(decidedItem));
}

function decidedItem(a) {
  return el(
    'li',
    { 'data-approval-id': a.approvalId },
    el('span', { class: 'tool-name' }, text(a.toolName, 'tool')), ' ',
    statusBadge(a.status),
    a.decidedBy ? ` by ${a.decidedBy}` : '',
    isTime(a.decidedAt) ? [' · ', timeEl(a.decidedAt)] : '',
    a.note ? el('div', { class: 'decision-note' }, String(a.note)) : null,
  );
}

function renderTimeline(entries) {
  const node = $('timeline');
  if (!entries.length) {
    replaceChildren(node, el('li', { class: 'muted' }, 'No checkpoints yet.'));
    return;
  }
  replaceChildren(node, entries.map(timelineItem));
}

function timelineItem(entry) {
  // A superseded entry keeps its transcript, but only entries of the current line are forked or
  // reset to.
  const superseded = Boolean(entry.supersededBy);
  let button = null;
  let reset = null;
  if (!superseded) {
    button = el('button', { type: 'button', class: 'fork-here small', 'aria-label': `Fork from step ${entry.step}` }, 'Fork here');
    button.addEventListener('click', () => {
      const field = $('fork-form').elements.fromStep;
      field.value = String(entry.step);
      field.focus();
      field.scrollIntoView({ block: 'center' });
    });
    reset = el('button', { type: 'button', class: 'reset-here small', 'aria-label': `Reset to step ${entry.step}` }, 'Reset here');
    reset.addEventListener('click', () => lifecycleAction('/reset', { step: entry.step },
      `Reset this session to step ${entry.step}? Its workflow closes (the run in progress finishes), then it goes on from this entry; the later entries are kept, marked superseded.`,
      `Reset to step ${entry.step}. The next message continues from there.`));
  }
  return el(
    'li',
    { 'data-step': entry.step, class: superseded ? 'superseded' : '' },
    el(
      'div',
      { class: 'entry-head' },
      el('span', { class: 'step' }, `Step ${text(entry.step)}`),
      statusBadge(entry.status),
    ),
    el(
      'div',
      { class: 'entry-meta muted' },
      `run ${text(entry.run)}`,
      entry.finishReason ? ` · ${entry.finishReason}` : '',
      ` · ${number(entry.messageCount)} messages · `,
      timeEl(entry.savedAt),
    ),
    superseded ? el('div', { class: 'entry-superseded muted' }, `superseded by the ${entry.supersededBy}`) : null,
    stepList(entry.steps || []),
    button,
    reset,
  );
}

/**
 * The model turns and tool calls of a checkpoint, each with its duration; a compaction of the
 * model's view with what it replaced.
 */
function stepList(steps) {
  if (!steps.length) return '';
  return el('ul', { class: 'steps muted' }, steps.map((step) => step.kind === 'compaction'
    ? el('li', { 'data-kind': step.kind }, `compaction ${text(step.name)} · ${text(step.text)}`)
    : el(
    'li',
    { 'data-kind': step.kind },
    `${step.kind} ${text(step.name)} · ${duration(step.durationMs)}`,
    step.kind === 'model' && step.usage
      ? ` · ${number(step.usage.inputTokens)} / ${number(step.usage.outputTokens)} tokens` : '',
    step.error ? el('span', { class: 'step-error' }, ` · ${step.error}`) : '',
    step.text ? el('details', {}, el('summary', {}, 'Streamed before the failure'), el('pre', {}, step.text)) : '',
  )));
}

function duration(ms) {
  if (ms === null || ms === undefined) return 'duration unknown';
  if (ms < 1000) return `${ms} ms`;
  if (ms < 60000) return `${(ms / 1000).toFixed(2)} s`;
  return `${Math.floor(ms / 60000)} min ${Math.floor((ms % 60000) / 1000)} s`;
}

function renderLineage(lineage, session) {
  const node = $('lineage');
  const parts = [];
  const parent = lineage.parent || (session.parentSessionId && !session.parentCallId
    ? { sessionId: session.parentSessionId, step: session.parentStep, patch: session.forkPatch }
    : null);
  if (parent && parent.sessionId) {
    parts.push(el('p', {}, 'Fork of ', el('a', { href: sessionHref(parent.sessionId), class: 'mono' }, parent.sessionId),
      parent.step !== undefined && parent.step !== null ? ` at step ${parent.step}` : ''));
    if (parent.patch) parts.push(el('details', {}, el('summary', {}, 'Patch'), prettyPre(parent.patch)));
  }
  if (lineage.subAgentOf && lineage.subAgentOf.sessionId) {
    parts.push(el('p', { class: 'sub-agent-of' }, 'Sub-agent session of ',
      el('a', { href: sessionHref(lineage.subAgentOf.sessionId), class: 'mono' }, lineage.subAgentOf.sessionId),
      ', for its call ', el('span', { class: 'mono' }, text(lineage.subAgentOf.callId))));
  }
  const subAgents = Array.isArray(lineage.subAgents) ? lineage.subAgents : [];
  if (subAgents.length) {
    parts.push(el('p', {}, 'Sub-agent sessions:'));
    parts.push(el('ul', { class: 'sub-agents' }, subAgents.map((c) => el('li', {},
      el('a', { href: sessionHref(c.sessionId), class: 'mono' }, text(c.sessionId)),
      ` (agent ${text(c.agent)}, call ${text(c.callId)}): ${text(c.status)}`))));
  }
  const forks = Array.isArray(lineage.forks) ? lineage.forks : [];
  if (forks.length) {
    parts.push(el('p', {}, 'Forks:'));
    parts.push(el('ul', { class: 'forks' }, forks.map((f) => el('li', {},
      el('a', { href: sessionHref(f.sessionId), class: 'mono' }, text(f.sessionId)),
      f.parentStep !== undefined && f.parentStep !== null ? ` from step ${f.parentStep}` : '',
      f.forkPatch ? el('details', {}, el('summary', {}, 'Patch'), prettyPre(f.forkPatch)) : null))));
  }
  replaceChildren(node, parts.length ? parts : el('p', { class: 'muted' }, 'Not a fork, no forks, no sub-agent sessions.'));
}

// ---- Live updates ------------------------------------------------------------------------------

function connectEvents() {
  if (!('EventSource' in window)) return;
  // The browser reconnects by itself and sends Last-Event-ID, so no checkpoint is missed.
  const source = new EventSource(base + '/events');
  source.addEventListener('status', (event) => {
    const data = parse(event.data);
    if (!data) return;
    if (data.status) setStatus(data.status);
    if (typeof data.step === 'number' && data.step !== checkpointStep) {
      checkpointStep = data.step;
      if (liveStep === null || data.step >= liveStep) clearLive();
    }
    refreshSoon();
  });
  source.addEventListener('delta', (event) => {
    const data = parse(event.data);
    if (!data || typeof data.text !== 'string') return;
    appendDelta(data);
  });
}

function parse(data) {
  try {
    return JSON.parse(data);
  } catch {
    return null;
  }
}

function appendDelta(delta) {
  const live = $('live');
  live.hidden = false;
  if (typeof delta.step === 'number') liveStep = delta.step;
  const kind = delta.kind === 'reasoning' ? 'reasoning' : 'text';
  live.appendChild(el('span', { class: 'delta-text', 'data-kind': kind }, delta.text));
}

function clearLive() {
  const live = $('live');
  replaceChildren(live);
  live.hidden = true;
  liveStep = null;
}

// ---- Actions -----------------------------------------------------------------------------------

function busy(form, on) {
  for (const button of form.querySelectorAll('button')) if (button.type === 'submit') button.disabled = on;
}

$('send-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const form = event.currentTarget;
  const result = $('send-result');
  clearMessage(result);
  busy(form, true);
  try {
    await api(base + '/messages?wait=false', { method: 'POST', body: { input: form.elements.input.value } });
    form.elements.input.value = '';
    replaceChildren(result, 'Sent; the run continues in the background.');
    refreshSoon();
  } catch (e) {
    if (e.status === 409 && e.code === 'awaiting_approval') {
      const a = e.body.approval || {};
      showError(result, new Error(
        `The session waits for a decision on ${a.toolName || 'a tool call'}` +
        (a.approvalId ? ` (approval ${a.approvalId})` : '') + '; decide it first.'));
    } else {
      showError(result, e);
    }
  } finally {
    busy(form, false);
  }
});

$('cancel').addEventListener('click', async () => {
  const button = $('cancel');
  const result = $('send-result');
  clearMessage(result);
  button.disabled = true;
  try {
    await api(base + '/cancel', { method: 'POST', body: {} });
    replaceChildren(result, 'Cancellation requested.');
    refreshSoon();
  } catch (e) {
    showError(result, e);
  } finally {
    button.disabled = false;
  }
});

// Close, delete and reset: a pending approval is a 409; asked again, they go on with force, which
// cancels the run and settles the approval as cancelled.
async function lifecycleAction(path, body, confirmText, doneText) {
  const result = $('send-result');
  clearMessage(result);
  if (!window.confirm(confirmText)) return;
  try {
    try {
      await api(base + path, { method: 'POST', body });
    } catch (e) {
      if (e.status !== 409) throw e;
      if (!window.confirm(e.message + '\n\nCancel the run and its approval, and go on?')) return;
      await api(base + path + (path.includes('?') ? '&' : '?') + 'force=true', { method: 'POST', body });
    }
    replaceChildren(result, doneText);
    refreshSoon();
  } catch (e) {
    showError(result, e);
  }
}

$('close-session').addEventListener('click', () => lifecycleAction('/close', {},
  'Close this session? Its run finishes, then its workflow completes; a send starts it again.',
  'Closed. A message starts the session again from its last entry.'));

$('delete-session').addEventListener('click', () => lifecycleAction('/delete', {},
  'Delete this session? Its projection rows and its workflow are removed.',
  'Deleted.'));

/** The fork request from the form, or an Error naming what is wrong before anything is sent. */
function forkRequest(form) {
  const fromStep = Number.parseInt(form.elements.fromStep.value, 10);
  if (!Number.isInteger(fromStep) || fromStep < 0) return new Error('From step must be a checkpoint step (0 or more).');
  const request = { fromStep };
  const patchText = form.elements.patch.value.trim();
  if (patchText) {
    let patch;
    try {
      patch = JSON.parse(patchText);
    } catch (e) {
      return new Error('The patch is not JSON: ' + e.message);
    }
    if (patch === null || typeof patch !== 'object' || Array.isArray(patch)) return new Error('The patch must be a JSON object.');
    request.patch = patch;
  }
  const newSessionId = form.elements.newSessionId.value.trim();
  if (newSessionId) request.newSessionId = newSessionId;
  return request;
}

$('fork-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const form = event.currentTarget;
  const result = $('fork-result');
  clearMessage(result);
  const request = forkRequest(form);
  if (request instanceof Error) {
    showError(result, request);
    return;
  }
  busy(form, true);
  try {
    const fork = await api(base + '/forks', { method: 'POST', body: request });
    const id = fork && fork.sessionId;
    replaceChildren(result, 'Forked: ', id ? el('a', { href: sessionHref(id), class: 'mono' }, id) : 'a new session');
    refreshSoon();
  } catch (e) {
    showError(result, e);
  } finally {
    busy(form, false);
  }
});

$('compare-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const form = event.currentTarget;
  const otherId = form.elements.otherId.value.trim();
  const pre = $('compare-result');
  const errorLine = $('compare-error');
  clearMessage(errorLine);
  if (!otherId) return;
  busy(form, true);
  try {
    const comparison = await api(base + '/compare/' + enc(otherId));
    replaceChildren($('compare-summary'), compareSummary(comparison, otherId));
    pre.textContent = pretty(comparison);
    pre.hidden = false;
  } catch (e) {
    replaceChildren($('compare-summary'));
    pre.hidden = true;
    showError(errorLine, e);
  } finally {
    busy(form, false);
  }
});

/** A readable summary of Trajectories.Comparison: where the two differ first, and how. */
function compareSummary(c, otherId) {
  if (!c || typeof c !== 'object' || !('divergedAt' in c || 'drift' in c)) return null;
  const items = [];
  const stepsA = Array.isArray(c.stepsA) ? c.stepsA.length : null;
  const stepsB = Array.isArray(c.stepsB) ? c.stepsB.length : null;
  items.push(c.divergedAt === null || c.divergedAt === undefined
    ? 'The same steps.'
    : `They differ from step ${c.divergedAt} on.`);
  const drift = c.drift || {};
  if (drift.toolOrder) items.push('The tools are called in another order.');
  if (Array.isArray(drift.arguments) && drift.arguments.length) items.push('Other arguments: ' + drift.arguments.join(', ') + '.');
  if (drift.stepCount) items.push(`Step counts differ: ${text(stepsA)} here, ${text(stepsB)} in ${otherId}.`);
  if (drift.finishReason) items.push(`Finish reasons differ: ${text(c.finishReasonA)} here, ${text(c.finishReasonB)} in ${otherId}.`);
  return el('ul', { class: 'compare-summary' }, items.map((item) => el('li', {}, item)));
}

// ---- Start -------------------------------------------------------------------------------------

$('session-id').textContent = sessionId;
document.title = `${sessionId} · Durable agents console`;
loadIdentity();
loadSession();
loadHistory();
connectEvents();
