// The approvals inbox: pending approvals, oldest first, re-polled every few seconds. Cards stay in
// place between polls (a note being typed survives); each shows the conversation that led to it.
import {
  api, el, enc, replaceChildren, showError, clearMessage, loadIdentity,
  syncApprovalCards, messageEl, messagesAroundCall,
} from './console.js';

const POLL_MS = 5000;
// The first cards load their conversation at once; the others when they scroll near the view.
const EAGER_CARDS = 3;

const main = document.getElementById('inbox');
const list = document.getElementById('approvals');
const errorLine = document.getElementById('inbox-error');
const statusLine = document.getElementById('inbox-status');

const observer = 'IntersectionObserver' in window
  ? new IntersectionObserver(onVisible, { rootMargin: '300px' })
  : null;

async function poll() {
  try {
    const answer = await api('/api/approvals?pending=true');
    clearMessage(errorLine);
    const approvals = sortOldestFirst((answer && answer.approvals) || []).filter((a) => !a.status || a.status === 'pending');
    const added = syncApprovalCards(list, approvals, { withConversation: true });
    added.forEach(watchConversation);
    showEmpty(approvals.length === 0);
    statusLine.textContent = answer && answer.nextCursor
      ? `More than ${approvals.length} pending: the oldest ${approvals.length} are shown, the next ones as these are decided.`
      : approvals.length === 1 ? '1 pending.' : `${approvals.length} pending.`;
  } catch (e) {
    if (e.status !== 401) showError(errorLine, e);
  }
}

function sortOldestFirst(approvals) {
  // The server answers oldest first already; sorting again keeps new cards in place if it did not.
  return [...approvals].sort((a, b) => (a.requestedAt || 0) - (b.requestedAt || 0));
}

function showEmpty(empty) {
  let node = main.querySelector('.empty');
  if (empty && !node) {
    node = el('div', { class: 'empty card' }, el('p', {}, 'Nothing waits for a decision.'), el('p', { class: 'muted' }, 'New approvals appear here by themselves.'));
    list.before(node);
  } else if (!empty && node) {
    node.remove();
  }
}

function watchConversation(card) {
  const index = [...list.querySelectorAll('article.approval')].indexOf(card);
  if (!observer || index < EAGER_CARDS) loadConversation(card);
  else observer.observe(card);
}

function onVisible(entries) {
  for (const entry of entries) {
    if (entry.isIntersecting) {
      observer.unobserve(entry.target);
      loadConversation(entry.target);
    }
  }
}

// Several cards of one session share one fetch of it per poll period.
const sessionCache = new Map();

function fetchSession(sessionId) {
  const cached = sessionCache.get(sessionId);
  if (cached && Date.now() - cached.at < POLL_MS) return cached.promise;
  const promise = api('/api/sessions/' + enc(sessionId));
  sessionCache.set(sessionId, { at: Date.now(), promise });
  return promise;
}

async function loadConversation(card) {
  const slot = card.querySelector('.conversation');
  if (!slot || slot.dataset.loaded) return;
  slot.dataset.loaded = 'true';
  const toolCallId = card.dataset.toolCallId || null;
  try {
    const session = await fetchSession(card.dataset.sessionId);
    const messages = messagesAroundCall(session && session.transcript, toolCallId);
    replaceChildren(
      slot,
      el('h4', {}, 'Conversation'),
      messages.length ? messages.map(messageEl) : el('p', { class: 'muted' }, 'No messages.'),
    );
    // The call is the last message shown: start scrolled to it, the reader scrolls up for context.
    slot.scrollTop = slot.scrollHeight;
  } catch (e) {
    slot.dataset.loaded = '';
    const line = el('p', { class: 'form-message' });
    showError(line, e);
    replaceChildren(slot, el('h4', {}, 'Conversation'), line);
  }
}

loadIdentity();
poll();
setInterval(poll, POLL_MS);
