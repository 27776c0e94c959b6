// Mailroom dashboard: small conveniences over pages that work without it. No framework, no build.
'use strict';
(function () {
  var csrf = document.querySelector('meta[name="csrf-token"]');
  var token = csrf ? csrf.getAttribute('content') : '';

  function post(url, fields) {
    var body = new URLSearchParams(fields);
    body.set('_csrf', token);
    return fetch(url, {
      method: 'POST',
      body: body,
      credentials: 'same-origin',
      headers: { 'X-CSRF-Token': token, 'X-Requested-With': 'mailroom-dashboard' },
    });
  }

  // Dates in the reader's own time zone (the server writes UTC: it cannot know the zone).
  // data-zone adds the zone's name; the UTC time stays in the tooltip.
  function pad(n) {
    return (n < 10 ? '0' : '') + n;
  }
  function localTimes(root) {
    root.querySelectorAll('time[datetime]').forEach(function (el) {
      var d = new Date(el.getAttribute('datetime'));
      if (isNaN(d.getTime())) return;
      var text =
        d.getFullYear() +
        '-' +
        pad(d.getMonth() + 1) +
        '-' +
        pad(d.getDate()) +
        ' ' +
        pad(d.getHours()) +
        ':' +
        pad(d.getMinutes());
      if (el.hasAttribute('data-zone')) {
        var zone = new Intl.DateTimeFormat(undefined, { timeZoneName: 'short' })
          .formatToParts(d)
          .filter(function (part) {
            return part.type === 'timeZoneName';
          })[0];
        if (zone) text += ' ' + zone.value;
      }
      el.title = d.toISOString().slice(0, 16).replace('T', ' ') + ' UTC';
      el.textContent = (el.textContent.charAt(0) === ' ' ? ' ' : '') + text;
    });
  }
  localTimes(document);

  // Copy buttons: data-copy names the element whose text is copied.
  document.addEventListener('click', function (event) {
    var button = event.target.closest('button[data-copy]');
    if (!button) return;
    var source = document.getElementById(button.getAttribute('data-copy'));
    if (!source || !navigator.clipboard) return;
    navigator.clipboard.writeText(source.textContent.trim()).then(function () {
      var label = button.textContent;
      button.textContent = 'Copied';
      setTimeout(function () {
        button.textContent = label;
      }, 1500);
    });
  });

  // A button that destroys something asks first.
  document.addEventListener('submit', function (event) {
    var button = event.submitter && event.submitter.closest('[data-confirm]');
    var ask = button || event.target.querySelector('[data-confirm]');
    if (ask && !window.confirm(ask.getAttribute('data-confirm'))) event.preventDefault();
  });

  // Choosing another inbox opens it.
  document.querySelectorAll('select[data-autosubmit]').forEach(function (select) {
    select.addEventListener('change', function () {
      select.form.submit();
    });
  });

  // Opening an unread message marks it read (without the script, "Mark read" does); once it is,
  // the reader offers what is true now: "Mark unread".
  var reader = document.querySelector('[data-mark-read]');
  if (reader) {
    post('/mail/message/update', {
      account: reader.getAttribute('data-account'),
      uid: reader.getAttribute('data-mark-read'),
      action: 'read',
    }).then(function (response) {
      var field = reader.querySelector('input[name="action"][value="read"]');
      if (!response.ok || !field) return;
      field.value = 'unread';
      field.form.querySelector('button[type="submit"]').textContent = 'Mark unread';
      reader.removeAttribute('data-mark-read');
    });
  }

  // A webhook's deliveries waiting for their first attempt (a test event just sent): the section
  // is fetched again each second until none waits (two minutes at most; its Refresh link stays).
  var deliveries = document.querySelector('[data-refresh-while-waiting]');
  if (deliveries) {
    var rounds = 0;
    var refresh = function () {
      fetch(location.href, { credentials: 'same-origin' })
        .then(function (response) {
          return response.ok ? response.text() : '';
        })
        .then(function (html) {
          var fresh = new DOMParser().parseFromString(html, 'text/html').getElementById(deliveries.id);
          if (!fresh) return;
          deliveries.innerHTML = fresh.innerHTML;
          localTimes(deliveries);
          if (!fresh.hasAttribute('data-refresh-while-waiting')) {
            deliveries.removeAttribute('data-refresh-while-waiting');
          } else if (++rounds < 120) setTimeout(refresh, 1000);
        });
    };
    setTimeout(refresh, 1000);
  }

  // New mail appears at the top of an open INBOX list, from the inbox's event stream.
  var list = document.querySelector('ul[data-live]');
  if (list && window.EventSource) {
    var account = list.getAttribute('data-account');
    var status = document.getElementById('live-status');
    var source = new EventSource(list.getAttribute('data-live'));
    source.addEventListener('open', function () {
      list.setAttribute('data-connected', '');
    });
    source.addEventListener('email.received', function (message) {
      var event = JSON.parse(message.data);
      var email = event.data && event.data.email;
      if (!email || String(email.folder).toUpperCase() !== 'INBOX') return;
      if (list.querySelector('li[data-uid="' + email.uid + '"]')) return;
      var params = new URLSearchParams({ account: account, uid: String(email.uid) });
      fetch('/mail/message/row?' + params, { credentials: 'same-origin' })
        .then(function (response) {
          return response.ok ? response.text() : '';
        })
        .then(function (html) {
          if (!html || list.querySelector('li[data-uid="' + email.uid + '"]')) return;
          var holder = document.createElement('ul');
          holder.innerHTML = html;
          var row = holder.firstElementChild;
          row.classList.add('arrived');
          localTimes(row);
          list.insertBefore(row, list.firstChild);
          var empty = document.getElementById('empty-list');
          if (empty) empty.remove();
          var count = document.querySelector('[data-folder-unread="INBOX"]');
          if (count && count.firstChild)
            count.firstChild.nodeValue = String(Number(count.firstChild.nodeValue) + 1);
          if (status)
            status.textContent = 'New mail from ' + (email.fromName || email.from) + ': ' + email.subject;
        });
    });
    window.addEventListener('pagehide', function () {
      source.close();
    });
  }
})();
