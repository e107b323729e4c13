// Switchboard console: the little JavaScript the pages use. Everything works without it, except
// that times stay in UTC, changes are not confirmed, and an expectation's path offers the output
// fields of the step drawn with the page rather than the one just chosen.
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

// An expectation's path offers the output fields of the step chosen beside it (its datalist).
for (const input of document.querySelectorAll('input[data-paths-of]')) {
  const select = document.getElementById(input.getAttribute('data-paths-of'));
  if (!select) continue;
  select.addEventListener('change', () => {
    const option = select.selectedOptions[0];
    const list = option && option.getAttribute('data-paths');
    if (list) input.setAttribute('list', list);
    else input.removeAttribute('list');
  });
}
