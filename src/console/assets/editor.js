// Switchboard console: the recipe editor's script. The editor works without it (each button sends
// the form, datapills can be copied as text, a formula is checked when the page comes back); with
// it, a datapill goes where the cursor is, picking an application or an action applies at once,
// a formula is checked as it is typed (POST /console/recipes/formula/check, this origin), each
// step's application picker gets the whole catalog when it is focused or pressed, from one
// resource fetched at load that the browser keeps (GET /console/recipes/catalog?v=<version>), and
// the catalog of icons is searched as it is typed. When all of that is wired and the catalog is
// in hand, <html> has data-editor="ready".
'use strict';

let target = null;
document.addEventListener('focusin', (event) => {
  if (event.target.matches && event.target.matches('.pill-target')) target = event.target;
});

const isFormula = (field) => field.getAttribute('data-formula') === '1';

document.addEventListener('click', (event) => {
  const pill = event.target.closest && event.target.closest('button.pill[data-pill]');
  if (!pill) return;
  event.preventDefault();
  // The field last focused, else the first of the pill's own step.
  const step = pill.closest('fieldset');
  const field = target || (step && step.querySelector('.pill-target'));
  if (!field) return;
  let text = pill.getAttribute('data-pill');
  // In a formula the datapill is an expression: without the #{ } that puts it between words.
  if (isFormula(field) && text.startsWith('#{') && text.endsWith('}')) text = text.slice(2, -1);
  const start = field.selectionStart ?? field.value.length;
  const end = field.selectionEnd ?? field.value.length;
  field.value = field.value.slice(0, start) + text + field.value.slice(end);
  field.focus();
  field.setSelectionRange(start + text.length, start + text.length);
  if (isFormula(field)) scheduleCheck(field);
});

// A step's datapills are the first of the recipe's, listed once at the foot of the form: opening
// the step's list copies them in (toggle does not bubble: caught on the way down).
document.addEventListener(
  'toggle',
  (event) => {
    const list = event.target;
    if (!list.matches || !list.matches('details.pills[data-pills]') || !list.open) return;
    const all = document.querySelectorAll('#datapills li');
    const ul = document.createElement('ul');
    const count = Math.min(Number(list.getAttribute('data-pills')), all.length);
    for (let i = 0; i < count; i++) ul.append(all[i].cloneNode(true));
    list.querySelector('ul, p').replaceWith(ul);
    list.removeAttribute('data-pills');
  },
  true,
);

// Picking an application or an operation applies it (the Use button beside it).
document.addEventListener('change', (event) => {
  const select = event.target;
  if (!select.matches || !select.matches('select[name^="pick:"], select[name^="pickop:"]')) return;
  const use = select.closest('.picker') && select.closest('.picker').querySelector('button[name="op"]');
  if (use) use.click();
});

// Formula mode: the checkbox beside a field switches it; typing "=" into an empty field does too.
function setMode(field, formula) {
  const box = field.closest('.value-field');
  field.setAttribute('data-formula', formula ? '1' : '0');
  box.classList.toggle('formula', formula);
  const toggle = box.querySelector('input[type="checkbox"][name^="fm:"]');
  if (toggle) toggle.checked = formula;
  if (formula) {
    // A single datapill becomes the formula's expression.
    const single = /^#\{(_dp\('[^']*'\))\}$/.exec(field.value.trim());
    if (single) field.value = single[1];
    scheduleCheck(field);
  } else {
    showStatus(field, '', false);
  }
}

document.addEventListener('change', (event) => {
  const toggle = event.target;
  if (!toggle.matches || !toggle.matches('input[type="checkbox"][name^="fm:"]')) return;
  const field = toggle.closest('.value-field').querySelector('input[name^="f:"]');
  if (field) setMode(field, toggle.checked);
});

document.addEventListener('input', (event) => {
  const field = event.target;
  if (!field.matches || !field.matches('.value-field input[name^="f:"]')) return;
  if (!isFormula(field) && field.value === '=') {
    field.value = '';
    setMode(field, true);
    return;
  }
  if (isFormula(field)) scheduleCheck(field);
});

function showStatus(field, text, bad) {
  const status = document.getElementById(field.getAttribute('aria-describedby'));
  if (status) {
    status.textContent = text;
    status.classList.toggle('bad', bad);
  }
  if (bad) field.setAttribute('aria-invalid', 'true');
  else field.removeAttribute('aria-invalid');
}

const timers = new WeakMap();
const asked = new WeakMap();
function scheduleCheck(field) {
  clearTimeout(timers.get(field));
  timers.set(
    field,
    setTimeout(() => void check(field), 200),
  );
}

async function check(field) {
  const form = field.form;
  const url = form && form.getAttribute('data-formula-check');
  const csrf = form && form.querySelector('input[name="_csrf"]');
  if (!url || !csrf) return;
  const seq = (asked.get(field) || 0) + 1;
  asked.set(field, seq);
  try {
    const reply = await fetch(url, {
      method: 'POST',
      credentials: 'same-origin',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ _csrf: csrf.value, formula: field.value }),
    });
    if (asked.get(field) !== seq || !isFormula(field)) return; // a later keystroke asked again
    if (!reply.ok)
      return showStatus(field, 'The formula could not be checked now: it is checked when you save.', false);
    const answer = await reply.json();
    showStatus(field, answer.text, !answer.ok);
  } catch {
    if (asked.get(field) === seq)
      showStatus(field, 'The formula could not be checked now: it is checked when you save.', false);
  }
}

// The catalog once for the page: a step that has its application lists only that one until its
// picker is focused or pressed, when the whole catalog (fetched once, at load) is put in.
let catalog = null;
async function fetchCatalog() {
  const first = document.querySelector('select[data-catalog]');
  if (!first) return;
  const reply = await fetch(first.getAttribute('data-catalog'), { credentials: 'same-origin' });
  if (!reply.ok) return; // the Other applications buttons still list them
  catalog = (await reply.json()).groups;
  for (const other of document.querySelectorAll('button.other-apps')) other.hidden = true;
}

function fillPicker(select) {
  if (!catalog || !select.hasAttribute('data-catalog')) return;
  const current = select.value;
  const known = catalog.some((g) => g.connectors.some(([name]) => name === current));
  const fragment = document.createDocumentFragment();
  if (!known) fragment.append(select.options[0]);
  for (const group of catalog) {
    const optgroup = document.createElement('optgroup');
    optgroup.label = group.label;
    for (const [name, title] of group.connectors) optgroup.append(new Option(title, name, false, name === current));
    fragment.append(optgroup);
  }
  select.replaceChildren(fragment);
  select.value = current;
  select.removeAttribute('data-catalog');
}
for (const kind of ['focusin', 'pointerdown', 'mousedown'])
  document.addEventListener(kind, (event) => {
    if (event.target.matches && event.target.matches('select[data-catalog]')) fillPicker(event.target);
  });

// The catalog of icons searched as it is typed (by title or name), drawing at most the first
// SHOWN matches and a line saying how many more a longer query would narrow down, so a keystroke
// costs the same with 50 connectors or 5,000. Enter does not send the form.
const SHOWN = 50;
const indexes = new WeakMap();
function catalogIndex(grid) {
  let index = indexes.get(grid);
  if (!index) {
    index = [...grid.querySelectorAll('ul.catalog-grid')].map((list) => ({
      list,
      items: [...list.children].map((item) => {
        const button = item.querySelector('button');
        return { item, title: button.textContent.toLowerCase(), name: button.value.split(':').pop() };
      }),
    }));
    let more = grid.querySelector('p.catalog-more');
    if (!more) {
      more = document.createElement('p');
      more.className = 'muted small catalog-more';
      grid.append(more);
    }
    more.setAttribute('role', 'status');
    index.more = more;
    indexes.set(grid, index);
  }
  return index;
}
function filterCatalog(input) {
  const q = input.value.trim().toLowerCase();
  const grid = input.closest('details.catalog');
  const index = catalogIndex(grid);
  let matched = 0;
  for (const { list, items } of index) {
    let shown = 0;
    for (const entry of items) {
      const hit = q === '' || entry.title.includes(q) || entry.name.includes(q);
      if (hit) matched++;
      const show = hit && matched <= SHOWN;
      if (entry.item.hidden === show) entry.item.hidden = !show;
      if (show) shown++;
    }
    list.hidden = shown === 0;
    if (list.previousElementSibling && list.previousElementSibling.tagName === 'H4')
      list.previousElementSibling.hidden = shown === 0;
  }
  const more = matched - SHOWN;
  index.more.hidden = more <= 0 && (matched > 0 || q === '');
  index.more.textContent =
    more > 0
      ? `${more} more: type more of the name to narrow them down.`
      : matched === 0
        ? 'No application matches.'
        : '';
}
document.addEventListener('input', (event) => {
  if (event.target.matches && event.target.matches('input[data-catalog-filter]')) filterCatalog(event.target);
});
// Opened, the catalog draws its first matches only (the page sends them all for use without script).
document.addEventListener(
  'toggle',
  (event) => {
    const grid = event.target;
    if (grid.matches && grid.matches('details.catalog') && grid.open && !indexes.has(grid))
      filterCatalog(grid.querySelector('input[data-catalog-filter]'));
  },
  true,
);
document.addEventListener('keydown', (event) => {
  if (event.key === 'Enter' && event.target.matches && event.target.matches('input[data-catalog-filter]'))
    event.preventDefault();
});

fetchCatalog()
  .catch(() => {})
  .finally(() => {
    document.documentElement.setAttribute('data-editor', 'ready');
  });
