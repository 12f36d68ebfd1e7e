// Shared by every page of the console: the API client (CSRF, errors, login), DOM building from text
// nodes only, formatting, and the pieces two pages show alike (messages, approval cards).
//
// Every piece of text that comes from the API reaches the page through textContent or a text node,
// never through HTML parsing: a transcript message "<script>alert(1)</script>" must show as text.

/** An answer of the API that is not 2xx; `body` is the parsed error body when there is one. */
export class ApiError extends Error {
  constructor(status, body, fallback) {
    super((body && typeof body.message === 'string' && body.message) || fallback || `HTTP ${status}`);
    this.status = status;
    this.body = body || {};
    this.code = this.body.error || null;
  }
}

/** The CSRF token the server set in the agents_csrf cookie; posts echo it in X-CSRF-Token. */
export function csrfToken() {
  for (const part of document.cookie.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === 'agents_csrf') {
      return decodeURIComponent(part.slice(eq + 1).trim());
    }
  }
  return '';
}

/**
 * Calls the API and answers the parsed JSON body (null for an empty one). Throws ApiError for any
 * non-2xx answer; a 401 also shows the login form, since every page needs the session cookie.
 */
export async function api(path, { method = 'GET', body } = {}) {
  const headers = { Accept: 'application/json' };
  const init = { method, headers, credentials: 'same-origin' };
  if (method !== 'GET') {
    headers['Content-Type'] = 'application/json';
    headers['X-CSRF-Token'] = csrfToken();
    init.body = JSON.stringify(body === undefined ? {} : body);
  }
  let response;
  try {
    response = await fetch(path, init);
  } catch (e) {
    throw new ApiError(0, { error: 'network', message: 'The console cannot be reached (' + e.message + ').' });
  }
  const text = await response.text();
  let data = null;
  if (text) {
    try {
      data = JSON.parse(text);
    } catch {
      data = null;
    }
  }
  if (response.status === 401) {
    showLogin();
  }
  if (!response.ok) {
    throw new ApiError(response.status, data, response.statusText || `HTTP ${response.status}`);
  }
  return data;
}

export const enc = encodeURIComponent;

/** The page of one session; ids are always encoded, so an id cannot turn into another URL. */
export function sessionHref(id) {
  return '/sessions/' + enc(id);
}

/** Only http(s) links from the API are followed: a "javascript:" URL must never become an href. */
export function safeExternalUrl(url) {
  return typeof url === 'string' && /^https?:\/\//i.test(url) ? url : null;
}

/**
 * Builds an element: attrs sets attributes ("class", "data-*", "hidden", "for"...), "on<event>"
 * keys add listeners; children are nodes or strings (made text nodes), null/false are skipped and
 * arrays are flattened.
 */
export function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key.startsWith('on') && typeof value === 'function') {
      node.addEventListener(key.slice(2), value);
    } else if (key === 'class') {
      node.className = value;
    } else if (value === true) {
      node.setAttribute(key, '');
    } else {
      node.setAttribute(key, String(value));
    }
  }
  append(node, children);
  return node;
}

function append(node, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(node, child);
    else node.appendChild(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** Replaces the children of node (text nodes for strings). */
export function replaceChildren(node, ...children) {
  node.textContent = '';
  append(node, children);
}

/** JSON pretty-printed for a <pre>; strings are shown as they are. */
export function pretty(value) {
  if (value === undefined) return '';
  if (typeof value === 'string') return value;
  return JSON.stringify(value, null, 2);
}

export function prettyPre(value, cls) {
  return el('pre', { class: cls ? 'json ' + cls : 'json' }, pretty(value));
}

/** "45 s", "3 min", "2 h 5 min", "4 d": how long ago (or, negative, how far ahead). */
export function duration(ms) {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min`;
  const h = Math.floor(m / 60);
  if (h < 24) return m % 60 ? `${h} h ${m % 60} min` : `${h} h`;
  const d = Math.floor(h / 24);
  return h % 24 ? `${d} d ${h % 24} h` : `${d} d`;
}

export function isTime(ms) {
  return typeof ms === 'number' && Number.isFinite(ms) && ms > 0;
}

/** A <time> with the local date and time, the ISO instant as its datetime. */
export function timeEl(ms, cls) {
  if (!isTime(ms)) return el('span', { class: cls }, '–');
  const date = new Date(ms);
  return el('time', { class: cls, datetime: date.toISOString(), title: date.toISOString() }, date.toLocaleString());
}

export function number(n) {
  return typeof n === 'number' && Number.isFinite(n) ? n.toLocaleString() : '–';
}

export function text(value, fallback = '–') {
  return value === null || value === undefined || value === '' ? fallback : String(value);
}

/** A status badge; data-status carries the raw value the CSS colours by. */
export function statusBadge(status, attrs = {}) {
  return el('span', { class: 'badge', 'data-status': status || 'unknown', ...attrs }, text(status, 'unknown'));
}

/** An error message in an element that is already on the page (class "error" for the colour). */
export function showError(node, error) {
  node.classList.add('error');
  replaceChildren(node, error instanceof Error ? error.message : String(error));
}

export function clearMessage(node) {
  node.classList.remove('error');
  replaceChildren(node);
}

// ---- Login and identity -------------------------------------------------------------------------

let loginShown = false;

/** Shows the token form once, above the page's main content; a successful login reloads the page. */
export function showLogin() {
  if (loginShown) return;
  loginShown = true;
  const input = el('input', { name: 'token', type: 'password', id: 'login-token', autocomplete: 'current-password', required: true });
  const message = el('p', { class: 'form-message', role: 'alert' });
  const form = el(
    'form',
    { id: 'login-form', class: 'card login' },
    el('h2', {}, 'Sign in'),
    el('p', {}, 'This console needs your approver token.'),
    el('label', { for: 'login-token' }, 'Token'),
    input,
    el('div', { class: 'actions' }, el('button', { type: 'submit', class: 'primary' }, 'Sign in')),
    message,
  );
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    clearMessage(message);
    try {
      await postLogin(input.value);
      location.reload();
    } catch (e) {
      showError(message, e.status === 401 ? new Error('That token is not known.') : e);
    }
  });
  const main = document.querySelector('main');
  main.parentNode.insertBefore(form, main);
  input.focus();
}

async function postLogin(token) {
  // Not through api(): a 401 here means a wrong token, not a reason to show the form again.
  const response = await fetch('/api/login', {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'Content-Type': 'application/json', 'X-CSRF-Token': csrfToken(), Accept: 'application/json' },
    body: JSON.stringify({ token }),
  });
  if (!response.ok) {
    let body = null;
    try {
      body = await response.json();
    } catch {
      body = null;
    }
    throw new ApiError(response.status, body, `HTTP ${response.status}`);
  }
}

/** Fills #identity from GET /api/me; pages call it once at start. */
export async function loadIdentity() {
  const node = document.getElementById('identity');
  if (!node) return;
  try {
    const me = await api('/api/me');
    replaceChildren(node, el('span', { class: 'identity-name' }, text(me && me.identity, 'unknown')));
    node.dataset.state = 'signed-in';
    if (me && me.auth) node.title = `Signed in (${me.auth})`;
    if (me && me.auth === 'token') {
      // Only a token login can end here: the local user and a proxy's user are not the console's.
      const signOut = el('button', { type: 'button', id: 'sign-out', class: 'link' }, 'Sign out');
      signOut.addEventListener('click', async () => {
        await api('/api/logout', { method: 'POST' });
        location.reload();
      });
      node.appendChild(signOut);
    }
  } catch (e) {
    node.dataset.state = 'anonymous';
    replaceChildren(node, e.status === 401 ? 'Not signed in' : '');
  }
}

// ---- Messages -----------------------------------------------------------------------------------

const ROLE_LABELS = { system: 'System', user: 'User', assistant: 'Assistant', tool: 'Tool' };

/** A tool result that answers a rejected call: {"error":"rejected","note":"..."}. */
export function isRejection(result) {
  return result !== null && typeof result === 'object' && result.error === 'rejected';
}

/** One transcript message: role, text, tool calls, tool result (a rejection's note stands out). */
export function messageEl(message) {
  const role = message.role || 'unknown';
  const node = el('div', { class: 'message', 'data-role': role });
  const head = el('div', { class: 'message-head' }, el('span', { class: 'role' }, ROLE_LABELS[role] || role));
  if (role === 'tool' && message.toolName) {
    head.appendChild(el('span', { class: 'tool-name' }, message.toolName));
  }
  node.appendChild(head);
  if (typeof message.text === 'string' && message.text !== '') {
    node.appendChild(el('div', { class: 'text' }, message.text));
  }
  for (const call of Array.isArray(message.toolCalls) ? message.toolCalls : []) {
    node.appendChild(toolCallEl(call));
  }
  if (role === 'tool' || message.result !== undefined) {
    node.appendChild(toolResultEl(message));
  }
  const attachments = Array.isArray(message.attachments) ? message.attachments : [];
  if (attachments.length) {
    node.appendChild(
      el('ul', { class: 'attachments' }, attachments.map((a) =>
        el('li', {}, text(a && (a.name || a.artifactId), 'attachment'), a && a.mediaType ? ` (${a.mediaType})` : ''))),
    );
  }
  return node;
}

function toolCallEl(call) {
  return el(
    'div',
    { class: 'tool-call', 'data-tool-call-id': call && call.id },
    el('div', { class: 'tool-call-head' }, el('span', { class: 'label' }, 'Calls '), el('span', { class: 'tool-name' }, text(call && call.name, '?'))),
    prettyPre(call ? call.arguments : null, 'arguments'),
  );
}

function toolResultEl(message) {
  const result = message.result;
  const node = el('div', { class: 'tool-result', 'data-tool-call-id': message.toolCallId });
  if (isRejection(result)) {
    node.classList.add('rejected');
    node.appendChild(
      el('p', { class: 'rejection' }, el('strong', {}, 'Rejected'),
        result.note ? [': ', el('span', { class: 'rejection-note' }, String(result.note))] : ' (no note)'),
    );
  } else if (result && typeof result === 'object' && typeof result.error === 'string') {
    node.classList.add('failed');
  }
  node.appendChild(prettyPre(result === undefined ? null : result));
  return node;
}

/**
 * The last `count` messages up to (and with) the assistant message that made the call, so an
 * approver sees what led to it; the whole tail when the call is not found.
 */
export function messagesAroundCall(transcript, toolCallId, count = 6) {
  const messages = Array.isArray(transcript) ? transcript : [];
  let end = messages.length;
  for (let i = messages.length - 1; i >= 0; i--) {
    const calls = messages[i].toolCalls;
    if (Array.isArray(calls) && calls.some((c) => c && c.id === toolCallId)) {
      end = i + 1;
      break;
    }
  }
  return messages.slice(Math.max(0, end - count), end);
}

// ---- Approval cards (inbox and session page) -----------------------------------------------------

/**
 * An approval card: tool, age, session link, arguments, the note and approve / reject, and with
 * withConversation an empty .conversation slot the page fills. onDecided(card) runs after a click
 * has been answered (whatever the answer).
 */
export function approvalCard(approval, { withConversation = false, onDecided = null } = {}) {
  const note = el('textarea', { name: 'note', rows: 2, placeholder: 'Why (optional, recorded with the decision)' });
  const approve = el('button', { type: 'button', class: 'approve' }, 'Approve');
  const reject = el('button', { type: 'button', class: 'reject' }, 'Reject');
  const outcome = el('div', { class: 'outcome', role: 'status', 'aria-live': 'polite' });
  const card = el(
    'article',
    {
      class: 'approval card',
      'data-approval-id': approval.approvalId,
      'data-session-id': approval.sessionId,
      'data-tool-call-id': approval.toolCallId,
      'data-requested-at': isTime(approval.requestedAt) ? approval.requestedAt : null,
      'data-state': 'pending',
    },
    el(
      'header',
      { class: 'approval-head' },
      el('h3', {}, el('span', { class: 'tool' }, text(approval.toolName, 'tool'))),
      el(
        'p',
        { class: 'meta' },
        'requested ', el('span', { class: 'age' }, ageText(approval.requestedAt)), ' ago in ',
        el('a', { href: sessionHref(approval.sessionId), class: 'session-link' }, text(approval.sessionId)),
        approval.parentSessionId
          ? el('span', { class: 'sub-agent-of' }, ', a sub-agent session of ',
            el('a', { href: sessionHref(approval.parentSessionId), class: 'parent-link' }, text(approval.parentSessionId)))
          : '',
        approval.step !== undefined ? ` · step ${approval.step}` : '',
        approval.run !== undefined ? ` · run ${approval.run}` : '',
        expiryText(approval.expiresAt),
      ),
    ),
    el(
      'div',
      { class: withConversation ? 'approval-body with-conversation' : 'approval-body' },
      el(
        'div',
        { class: 'decision' },
        el('h4', {}, 'Arguments'),
        el('pre', { class: 'arguments json' }, JSON.stringify(approval.input === undefined ? null : approval.input, null, 2)),
        el('label', { class: 'note-label' }, el('span', {}, 'Note'), note),
        el('div', { class: 'actions' }, approve, reject),
        outcome,
      ),
      withConversation
        ? el('section', { class: 'conversation', 'aria-label': 'Conversation around the call', tabindex: 0 },
          el('p', { class: 'muted' }, 'Loading the conversation…'))
        : null,
    ),
  );
  const decideAndTell = async (approved) => {
    await decide(card, approval, approved);
    if (onDecided) onDecided(card);
  };
  approve.addEventListener('click', () => decideAndTell(true));
  reject.addEventListener('click', () => decideAndTell(false));
  return card;
}

function ageText(requestedAt) {
  return isTime(requestedAt) ? duration(Date.now() - requestedAt) : '?';
}

function expiryText(expiresAt) {
  if (!isTime(expiresAt)) return '';
  const left = expiresAt - Date.now();
  return left > 0 ? ` · expires in ${duration(left)}` : ' · expired';
}

/** Refreshes the age of a card (the inbox does it on every poll). */
export function refreshAge(card) {
  const age = card.querySelector('.age');
  const at = Number(card.dataset.requestedAt);
  if (age && at) age.textContent = duration(Date.now() - at);
}

function setButtons(card, disabled) {
  for (const button of card.querySelectorAll('button.approve, button.reject')) button.disabled = disabled;
  const note = card.querySelector('textarea[name="note"]');
  if (note) note.readOnly = disabled;
}

async function decide(card, approval, approved) {
  const outcome = card.querySelector('.outcome');
  const note = card.querySelector('textarea[name="note"]').value;
  setButtons(card, true);
  outcome.className = 'outcome';
  replaceChildren(outcome, approved ? 'Approving…' : 'Rejecting…');
  try {
    // A sub-agent's approval is decided through its parent, which passes the decision on.
    const decidedIn = approval.parentSessionId || approval.sessionId;
    const answer = await api(`/api/sessions/${enc(decidedIn)}/approvals/${enc(approval.approvalId)}`, {
      method: 'POST',
      body: { approved, note },
    });
    const status = (answer && answer.outcome && answer.outcome.outcome) || (approved ? 'approved' : 'rejected');
    showDecision(card, { status, decidedBy: answer && answer.decidedBy, note });
  } catch (e) {
    if (e.status === 409 && e.body.decision) {
      showDecision(card, e.body.decision, true);
    } else {
      card.dataset.state = 'error';
      showError(outcome, e);
      // A network or server failure may pass; a 4xx answer (not found, bad note...) will not.
      if (e.status === 0 || e.status >= 500) setButtons(card, false);
    }
  }
}

function showDecision(card, decision, earlier = false) {
  const outcome = card.querySelector('.outcome');
  const status = decision.status || 'decided';
  card.dataset.state = 'decided';
  outcome.className = 'outcome decided';
  outcome.dataset.status = status;
  replaceChildren(
    outcome,
    earlier ? 'Already decided: ' : '',
    el('strong', {}, capitalize(status)),
    decision.decidedBy ? ` by ${decision.decidedBy}` : '',
    isTime(decision.decidedAt) ? [' at ', timeEl(decision.decidedAt)] : '',
    decision.note ? [' — ', el('q', { class: 'decision-note' }, String(decision.note))] : '',
  );
  setButtons(card, true);
}

function capitalize(s) {
  const str = String(s);
  return str.charAt(0).toUpperCase() + str.slice(1);
}

/**
 * Brings the cards in `list` in line with `approvals` (oldest first) without rebuilding the cards
 * that stay, so a note being typed survives a poll: new approvals get a card in order, cards whose
 * approval is no longer pending are marked (and keep whatever the user saw). Answers the new cards.
 */
export function syncApprovalCards(list, approvals, options = {}) {
  const existing = new Map();
  for (const card of list.querySelectorAll('article.approval')) existing.set(card.dataset.approvalId, card);
  const added = [];
  const seen = new Set();
  let previous = null;
  for (const approval of approvals) {
    seen.add(approval.approvalId);
    let card = existing.get(approval.approvalId);
    if (!card) {
      card = approvalCard(approval, options);
      added.push(card);
      if (previous) previous.after(card);
      else list.prepend(card);
    } else {
      refreshAge(card);
    }
    previous = card;
  }
  for (const [id, card] of existing) {
    if (!seen.has(id) && card.dataset.state === 'pending') markVanished(card);
  }
  return added;
}

function markVanished(card) {
  card.dataset.state = 'vanished';
  card.classList.add('vanished');
  const outcome = card.querySelector('.outcome');
  outcome.className = 'outcome';
  replaceChildren(outcome, 'No longer pending: decided elsewhere, expired or cancelled.');
  setButtons(card, true);
}

/** The number of cards still waiting for a decision. */
export function pendingCount(list) {
  return list.querySelectorAll('article.approval[data-state="pending"], article.approval[data-state="error"]').length;
}
