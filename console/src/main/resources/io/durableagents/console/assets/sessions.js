// The session list: filters live in the query string (so a filtered list can be bookmarked and
// the back button works), pages follow the server's nextCursor.
import {
  api, el, sessionHref, replaceChildren, showError, clearMessage, loadIdentity,
  statusBadge, timeEl, number, text,
} from './console.js';

const PAGE_SIZE = 50;
const FILTERS = ['status', 'agent', 'q'];

const form = document.getElementById('filters');
const body = document.querySelector('#sessions tbody');
const next = document.getElementById('next');
const errorLine = document.getElementById('sessions-error');
const empty = document.getElementById('sessions-empty');

let nextCursor = null;
// Answers of an older query that arrive late must not land in the table of a newer one.
let generation = 0;

function filtersFromQuery() {
  const params = new URLSearchParams(location.search);
  const filters = {};
  for (const name of FILTERS) filters[name] = params.get(name) || '';
  return filters;
}

function fillForm(filters) {
  for (const name of FILTERS) form.elements[name].value = filters[name];
}

function listUrl(filters, cursor) {
  const params = new URLSearchParams();
  for (const name of FILTERS) params.set(name, filters[name]);
  params.set('limit', String(PAGE_SIZE));
  if (cursor) params.set('cursor', cursor);
  return '/api/sessions?' + params.toString();
}

async function load(filters, cursor) {
  const mine = cursor ? generation : ++generation;
  next.disabled = true;
  try {
    const answer = await api(listUrl(filters, cursor));
    if (mine !== generation) return;
    clearMessage(errorLine);
    const sessions = (answer && answer.sessions) || [];
    if (!cursor) replaceChildren(body);
    for (const session of sessions) body.appendChild(row(session));
    nextCursor = (answer && answer.nextCursor) || null;
    next.hidden = nextCursor === null;
    empty.hidden = body.rows.length > 0;
  } catch (e) {
    if (mine === generation && e.status !== 401) showError(errorLine, e);
  } finally {
    next.disabled = false;
  }
}

function cell(label, ...children) {
  // data-label names the column on narrow screens, where each row becomes a card.
  return el('td', { 'data-label': label }, ...children);
}

function row(session) {
  const id = session.sessionId;
  const fork = session.parentSessionId
    ? el('div', { class: 'fork-of muted' }, 'fork of ',
      el('a', { href: sessionHref(session.parentSessionId) }, session.parentSessionId),
      session.parentStep !== undefined && session.parentStep !== null ? `@${session.parentStep}` : '')
    : null;
  return el(
    'tr',
    { 'data-session-id': id },
    cell('Session', el('a', { href: sessionHref(id), class: 'session-link mono' }, text(id)), fork),
    cell('Agent', text(session.agent)),
    cell('Status', statusBadge(session.status)),
    cell('Run', text(session.currentRun)),
    cell('Last step', text(session.lastStep)),
    cell('Messages', number(session.messageCount)),
    cell('Tokens in / out', `${number(session.inputTokens)} / ${number(session.outputTokens)}`),
    cell('Updated', timeEl(session.updatedAt)),
  );
}

form.addEventListener('submit', (event) => {
  event.preventDefault();
  const filters = {};
  for (const name of FILTERS) filters[name] = form.elements[name].value.trim();
  const params = new URLSearchParams();
  for (const name of FILTERS) if (filters[name]) params.set(name, filters[name]);
  const query = params.toString();
  history.pushState(null, '', location.pathname + (query ? '?' + query : ''));
  load(filters, null);
});

next.addEventListener('click', () => {
  if (nextCursor) load(filtersFromQuery(), nextCursor);
});

window.addEventListener('popstate', () => {
  const filters = filtersFromQuery();
  fillForm(filters);
  load(filters, null);
});

loadIdentity();
const initial = filtersFromQuery();
fillForm(initial);
load(initial, null);
