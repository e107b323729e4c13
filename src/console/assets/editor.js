// Switchboard console: the recipe editor's script. The editor works without it (each button sends
// the form, datapills can be copied as text); with it, a datapill goes where the cursor is and
// picking an application or an action applies at once.
'use strict';

let target = null;
document.addEventListener('focusin', (event) => {
  if (event.target.matches && event.target.matches('.pill-target')) target = event.target;
});

document.addEventListener('click', (event) => {
  const pill = event.target.closest && event.target.closest('button.pill[data-pill]');
  if (!pill) return;
  event.preventDefault();
  // The field last focused, else the first of the pill's own step.
  const field = target || pill.closest('fieldset').querySelector('.pill-target');
  if (!field) return;
  const text = pill.getAttribute('data-pill');
  const start = field.selectionStart ?? field.value.length;
  const end = field.selectionEnd ?? field.value.length;
  field.value = field.value.slice(0, start) + text + field.value.slice(end);
  field.focus();
  field.setSelectionRange(start + text.length, start + text.length);
});

// Picking an application or an operation applies it (the Use button beside it).
document.addEventListener('change', (event) => {
  const select = event.target;
  if (!select.matches || !select.matches('select[name^="pick:"], select[name^="pickop:"]')) return;
  const use = select.closest('.picker') && select.closest('.picker').querySelector('button[name="op"]');
  if (use) use.click();
});
