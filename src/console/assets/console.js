// Switchboard console: the little JavaScript the pages use. Everything works without it, except
// that times stay in UTC and changes are not confirmed.
'use strict';

// Times in the browser's time zone: the server writes ISO times in <time datetime>.
const format = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });
for (const el of document.querySelectorAll('time[datetime]')) {
  const at = new Date(el.getAttribute('datetime'));
  if (!Number.isNaN(at.getTime())) {
    el.title = el.getAttribute('datetime');
    el.textContent = format.format(at);
  }
}

// A button with data-confirm asks before its form is sent.
document.addEventListener('submit', (event) => {
  const button = event.submitter || event.target.querySelector('button[data-confirm]');
  const question = button && button.getAttribute('data-confirm');
  if (question && !window.confirm(question)) event.preventDefault();
});

// A freshly issued secret is selected, ready to copy.
const secret = document.getElementById('issued-secret');
if (secret) {
  const range = document.createRange();
  range.selectNodeContents(secret);
  const selection = window.getSelection();
  selection.removeAllRanges();
  selection.addRange(range);
}
