// Target leases console: plain DOM, no framework, no build step. Every value is written with textContent.
'use strict';
(function () {
  const csrfHeader = document.querySelector('meta[name="csrf-header"]').content;
  const csrfToken = document.querySelector('meta[name="csrf-token"]').content;
  const $ = (id) => document.getElementById(id);
  const state = { caller: null, skewMs: 0, cursors: [null], page: 0, next: null, leases: [], leasesJson: '',
    detail: null, action: null, timer: null };

  function el(tag, text, attrs) {
    const node = document.createElement(tag);
    if (text !== undefined && text !== null) node.textContent = String(text);
    for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
    return node;
  }
  function row(cells) {
    const tr = document.createElement('tr');
    for (const c of cells) tr.appendChild(c instanceof Node ? wrap(c) : el('td', c));
    return tr;
  }
  function wrap(node) { const td = document.createElement('td'); td.appendChild(node); return td; }
  function time(iso) {
    if (!iso) return el('span', '—');
    return el('time', iso.substring(11, 19) + ' UTC', { datetime: iso, title: iso });
  }
  function say(text, kind) { const s = $('status'); s.textContent = text; s.className = 'status ' + (kind || ''); }
  function can(capability) { return !!state.caller && state.caller.capabilities.includes(capability); }
  function serverNow() { return Date.now() + state.skewMs; }
  function scope() { return { tenant_id: state.caller.tenant_id, program_id: $('program').value }; }
  function query(params) {
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(params)) if (v !== null && v !== undefined && v !== '') q.append(k, v);
    return q.toString();
  }

  async function api(path, body) {
    const init = { credentials: 'same-origin', headers: { Accept: 'application/json' } };
    if (body !== undefined) {
      init.method = 'POST';
      init.headers['Content-Type'] = 'application/json';
      init.headers[csrfHeader] = csrfToken;
      init.body = JSON.stringify(body);
    }
    let response;
    try {
      response = await fetch(path, init);
    } catch (e) {
      return { status: 0, json: { status: 'error', code: 'network_error', msg: 'The console could not reach the server' } };
    }
    if (response.status === 401) { window.location.assign('login'); }
    let json;
    try { json = await response.json(); } catch (e) { json = { status: 'error', code: 'http_' + response.status, msg: 'Unexpected answer' }; }
    return { status: response.status, json: json };
  }

  // ------------------------------------------------------------------ caller
  async function loadCaller() {
    const r = await api('me');
    if (r.status !== 200) { $('caller').textContent = 'Not signed in'; return false; }
    state.caller = r.json.caller;
    state.skewMs = Date.parse(r.json.server_time) - Date.now();
    const c = state.caller;
    $('caller').textContent = c.principal_id + ' · ' + c.kind + ' · ' + c.tenant_id + ' · '
      + (c.capabilities.length ? c.capabilities.join(', ') : 'no capabilities');
    // recovery is a mass revoke (the server also refuses a grant confined to actors or targets)
    $('recover-program').hidden = !can('targets:revoke');
    const select = $('program');
    select.replaceChildren();
    for (const p of c.programs) select.appendChild(el('option', p, { value: p }));
    return true;
  }

  // ------------------------------------------------------------------ list
  function filters() {
    const params = Object.assign(scope(), { page_size: $('page-size').value });
    const owner = $('owner').value.trim();
    const ns = $('target-namespace').value.trim();
    const target = $('target-id').value.trim();
    if (owner) params.owner_principal_id = owner;
    else if (ns || target) { params.target_namespace = ns; params.target_id = target; }
    const cursor = state.cursors[state.page];
    if (cursor) params.cursor = cursor;
    return params;
  }

  async function loadLeases() {
    const r = await api('api/leases?' + query(filters()));
    if (r.status !== 200) { say(r.json.code + ': ' + r.json.msg, 'error'); return; }
    state.next = r.json.next_cursor;
    const text = JSON.stringify(r.json.leases);
    if (text !== state.leasesJson) { state.leasesJson = text; state.leases = r.json.leases; renderLeases(); }
    $('prev-page').disabled = state.page === 0;
    $('next-page').disabled = !state.next;
    $('page-info').textContent = 'Page ' + (state.page + 1) + ' · ' + state.leases.length + ' lease(s)';
  }

  function renderLeases() {
    const body = $('leases').querySelector('tbody');
    body.replaceChildren();
    if (state.leases.length === 0) {
      const tr = document.createElement('tr');
      tr.appendChild(el('td', 'No active leases match.', { colspan: '9', class: 'empty' }));
      body.appendChild(tr);
      return;
    }
    for (const lease of state.leases) {
      const id = lease.lock_identity;
      const holder = lease.holder || {};
      const actions = document.createElement('div');
      actions.className = 'buttons';
      const label = id.target_namespace + '/' + id.target_id;
      const details = el('button', 'Details', { type: 'button', class: 'details', 'aria-label': 'Details of ' + label });
      details.addEventListener('click', () => openDetail(lease));
      actions.appendChild(details);
      if (can('targets:force-release')) {
        const b = el('button', 'Force-release', { type: 'button', class: 'force-release', 'aria-label': 'Force-release ' + label });
        b.addEventListener('click', () => confirmAction('force-release', lease));
        actions.appendChild(b);
      }
      if (can('targets:revoke')) {
        const b = el('button', 'Revoke', { type: 'button', class: 'revoke danger', 'aria-label': 'Revoke ' + label });
        b.addEventListener('click', () => confirmAction('revoke', lease));
        actions.appendChild(b);
      }
      const holderCell = el('span');
      holderCell.appendChild(el('span', holder.owner_principal_id || '—', { class: 'owner' }));
      holderCell.appendChild(el('br'));
      holderCell.appendChild(el('small', holder.service_instance_id || ''));
      const renewed = el('span');
      renewed.appendChild(time(lease.renewed_at));
      renewed.appendChild(el('small', '', { class: 'lag', 'data-renewed': String(Date.parse(lease.renewed_at)) }));
      const tr = row([label, id.actor_name + ' / ' + id.workflow_name + ' / ' + id.operation_class, holderCell,
        String(lease.fencing_token), time(lease.acquired_at), renewed,
        el('span', '', { class: 'countdown', 'data-expires': String(Date.parse(lease.expires_at)) }),
        el('span', lease.state, { class: 'state state-' + lease.state }), actions]);
      tr.setAttribute('data-lease-id', lease.lease_id);
      body.appendChild(tr);
    }
    tick();
  }

  function tick() {
    const now = serverNow();
    for (const node of document.querySelectorAll('.countdown[data-expires]')) {
      const left = Math.floor((Number(node.dataset.expires) - now) / 1000);
      node.textContent = left >= 0 ? left + ' s' : 'expired';
      node.classList.toggle('warn', left < 5);
    }
    for (const node of document.querySelectorAll('.lag[data-renewed]')) {
      const lag = Math.max(0, Math.floor((now - Number(node.dataset.renewed)) / 1000));
      node.textContent = ' (' + lag + ' s ago)';
    }
  }

  // ------------------------------------------------------------------ health
  async function loadHealth() {
    const r = await api('api/health?' + query(scope()));
    const rejections = $('rejections').querySelector('tbody');
    const losses = $('losses').querySelector('tbody');
    rejections.replaceChildren();
    losses.replaceChildren();
    if (r.status !== 200) { rejections.appendChild(row([r.json.code, '', '', ''])); return; }
    if (!r.json.stream_available) rejections.appendChild(row(['No durable audit stream', '', '', '']));
    for (const p of r.json.rejected_commits) {
      const reasons = Object.entries(p.reasons).map(([k, v]) => k + ' ×' + v).join(', ');
      const tr = row([p.enforcement_point, String(p.count), reasons, time(p.last_at)]);
      tr.setAttribute('data-enforcement-point', p.enforcement_point);
      rejections.appendChild(tr);
    }
    if (r.json.rejected_commits.length === 0 && r.json.stream_available) rejections.appendChild(row(['none', '0', '', '']));
    for (const e of r.json.lease_losses) {
      const tr = row([time(e.backend_time), e.event_type.replace('target_lease_', ''),
        (e.target_namespace || '') + '/' + (e.target_id || ''), e.fencing_token || '', e.reason || '']);
      tr.setAttribute('data-lease-id', e.lease_id || '');
      losses.appendChild(tr);
    }
    if (r.json.lease_losses.length === 0) losses.appendChild(row(['—', 'none', '', '', '']));
  }

  // ------------------------------------------------------------------ detail
  async function openDetail(lease) {
    state.detail = lease;
    $('detail').hidden = false;
    await loadDetail();
    $('detail-heading').focus();
  }

  async function loadDetail() {
    const lease = state.detail;
    if (!lease) return;
    const id = lease.lock_identity;
    const r = await api('api/leases/' + encodeURIComponent(lease.lease_id) + '?' + query(scope()));
    const current = r.status === 200 ? r.json.lease : null;
    const fields = $('detail-fields');
    fields.replaceChildren();
    const add = (k, v) => { fields.appendChild(el('dt', k)); fields.appendChild(el('dd', v)); };
    add('Lease', lease.lease_id);
    add('Target', id.target_namespace + '/' + id.target_id);
    add('Actor / workflow / class', id.actor_name + ' / ' + id.workflow_name + ' / ' + id.operation_class);
    add('Holder', (lease.holder ? lease.holder.owner_principal_id + ' on ' + lease.holder.service_instance_id : '—'));
    add('Execution / job', lease.holder ? (lease.holder.execution_id || '—') + ' / ' + (lease.holder.job_id || '—') : '—');
    add('Fencing token', String(lease.fencing_token));
    add('State now', current ? current.state + ' (expires ' + current.expires_at + ')' : 'not active (' + r.json.code + ')');
    const e = await api('api/leases/' + encodeURIComponent(lease.lease_id) + '/events?' + query(scope()));
    const body = $('events').querySelector('tbody');
    body.replaceChildren();
    if (e.status !== 200) { body.appendChild(row([e.json.code, e.json.msg, '', '', '', '', ''])); return; }
    if (!e.json.stream_available) body.appendChild(row(['—', 'No durable audit stream', '', '', '', '', '']));
    for (const ev of e.json.events) {
      const tr = row([time(ev.backend_time), ev.event_type.replace('target_lease_', ''), ev.result_code || '',
        ev.fencing_token || '', (ev.principal_class || '') + ' ' + (ev.principal_id || ''),
        (ev.previous_state || '') + (ev.resulting_state ? ' → ' + ev.resulting_state : ''), ev.reason || '']);
      tr.setAttribute('data-event-type', ev.event_type);
      body.appendChild(tr);
    }
    if (e.json.events.length === 0) body.appendChild(row(['—', 'no events in the scanned window', '', '', '', '', '']));
  }

  // ------------------------------------------------------------------ force-release / revoke
  function confirmRecover() {
    state.action = { kind: 'recover', lease: null };
    $('confirm-heading').textContent = 'Recover program';
    $('confirm-what').textContent = 'Recover program ' + $('program').value + '? Every active lease of the program is'
      + ' revoked (restore or failover recovery): every holder loses its lease and must acquire again.';
    $('confirm-ok').textContent = 'Recover';
    $('incident-row').hidden = true;
    $('confirm-reason').value = '';
    $('confirm-incident').value = '';
    $('confirm').showModal();
    $('confirm-reason').focus();
  }

  async function submitRecover() {
    const body = scope();
    body.reason = $('confirm-reason').value.trim();
    $('confirm').close();
    say('Recovering…');
    const r = await api('api/recover', body);
    if (r.status === 200) {
      say(r.json.code + ': ' + r.json.recovery.revoked + ' lease(s) of ' + r.json.recovery.program_id
        + ' revoked (correlation ' + r.json.correlation_id + ')', 'ok');
    } else {
      say(r.json.code + ': ' + r.json.msg + (r.json.correlation_id ? ' (correlation ' + r.json.correlation_id + ')' : ''), 'error');
    }
    state.action = null;
    await refresh();
  }

  function confirmAction(kind, lease) {
    state.action = { kind: kind, lease: lease };
    const id = lease.lock_identity;
    $('confirm-heading').textContent = kind === 'revoke' ? 'Revoke lease' : 'Force-release lease';
    $('confirm-what').textContent = (kind === 'revoke' ? 'Revoke' : 'Force-release') + ' the lease of '
      + id.target_namespace + '/' + id.target_id + ' held by ' + (lease.holder ? lease.holder.owner_principal_id : '?')
      + ' (fencing token ' + lease.fencing_token + ')? Its holder loses it and its fenced writes are refused.';
    $('confirm-ok').textContent = kind === 'revoke' ? 'Revoke' : 'Force-release';
    $('incident-row').hidden = kind !== 'revoke';
    $('confirm-reason').value = '';
    $('confirm-incident').value = '';
    $('confirm').showModal();
    $('confirm-reason').focus();
  }

  async function submitAction() {
    const action = state.action;
    if (!action) return;
    if (action.kind === 'recover') { await submitRecover(); return; }
    const lease = action.lease;
    const body = { request_id: 'req-console-' + randomId(), lock_identity: lease.lock_identity,
      lease_id: lease.lease_id, fencing_token: lease.fencing_token, reason: $('confirm-reason').value.trim() };
    const incident = $('confirm-incident').value.trim();
    if (action.kind === 'revoke' && incident) body.incident_id = incident;
    $('confirm').close();
    say((action.kind === 'revoke' ? 'Revoking' : 'Releasing') + '…');
    const r = await api('api/' + action.kind, body);
    const id = lease.lock_identity;
    if (r.status === 200) {
      say(r.json.code + ': ' + id.target_namespace + '/' + id.target_id + ' is now ' + r.json.lease.state
        + ' (correlation ' + r.json.correlation_id + ')', 'ok');
    } else {
      say(r.json.code + ': ' + r.json.msg + (r.json.correlation_id ? ' (correlation ' + r.json.correlation_id + ')' : ''), 'error');
    }
    state.action = null;
    await refresh();
  }

  function randomId() {
    const bytes = new Uint8Array(12);
    crypto.getRandomValues(bytes);
    return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
  }

  async function refresh() {
    await loadLeases();
    await loadHealth();
    if (state.detail) await loadDetail();
  }

  // ------------------------------------------------------------------ wiring
  async function start() {
    if (!(await loadCaller())) return;
    $('filters').addEventListener('submit', (event) => {
      event.preventDefault();
      state.cursors = [null]; state.page = 0; state.leasesJson = '';
      refresh();
    });
    $('program').addEventListener('change', () => { state.cursors = [null]; state.page = 0; state.detail = null; $('detail').hidden = true; refresh(); });
    $('next-page').addEventListener('click', () => { state.cursors[state.page + 1] = state.next; state.page++; loadLeases(); });
    $('prev-page').addEventListener('click', () => { if (state.page > 0) { state.page--; loadLeases(); } });
    $('detail-refresh').addEventListener('click', loadDetail);
    $('detail-close').addEventListener('click', () => { state.detail = null; $('detail').hidden = true; $('leases-heading').focus(); });
    $('confirm-form').addEventListener('submit', (event) => {
      event.preventDefault();
      if (!$('confirm-reason').value.trim()) { $('confirm-reason').setCustomValidity('A reason is required'); $('confirm-reason').reportValidity(); return; }
      submitAction();
    });
    $('recover-program').addEventListener('click', confirmRecover);
    $('confirm-reason').addEventListener('input', () => $('confirm-reason').setCustomValidity(''));
    $('confirm-cancel').addEventListener('click', () => { state.action = null; $('confirm').close(); say('Cancelled.'); });
    setInterval(tick, 1000);
    setInterval(() => { if ($('auto-refresh').checked && !$('confirm').open) refresh(); }, 10000);
    await refresh();
  }

  start();
})();
