// The provider's own page (provider.html at top level): the sites the person let use this browser's models, and
// a way to revoke each, allow it again, or change the models it may run. A change takes effect on the site's next request (the
// frame checks every one).
import type { ConsentStore } from './consent';

/** A labelled checkbox per model id, appended to `into`, ticked where `ticked(id)`; the boxes, in the order of `ids`. */
export function modelBoxes(into: HTMLElement, ids: string[], ticked: (id: string) => boolean): HTMLInputElement[] {
  return ids.map((id) => {
    const label = document.createElement('label');
    const box = document.createElement('input');
    box.type = 'checkbox';
    box.value = id;
    box.checked = ticked(id);
    label.append(box, ` ${id}`);
    into.append(label, ' ');
    return box;
  });
}

/** `ids`: the models this provider keeps (the choices per site). */
export async function showConsents(main: HTMLElement, store: ConsentStore, ids: string[]): Promise<void> {
  const consents = (await store.list()).sort((a, b) => a.origin.localeCompare(b.origin));
  const title = document.createElement('h1');
  title.textContent = "Sites that use this browser's models";
  const intro = document.createElement('p');
  intro.textContent = "A site listed as allowed runs the models kept here, nothing else: it never sees this page's keys, stored responses or conversations.";
  if (consents.length === 0) {
    const none = document.createElement('p');
    none.id = 'no-sites';
    none.textContent = 'No site has asked yet.';
    main.replaceChildren(title, intro, none);
    return;
  }
  const table = document.createElement('table');
  table.id = 'sites';
  for (const consent of consents) {
    const row = table.insertRow();
    row.dataset.origin = consent.origin;
    row.insertCell().textContent = consent.origin;
    row.insertCell().textContent = consent.state;
    const models = row.insertCell();
    models.className = 'models';
    const granted = consent.state === 'granted';
    // One checkbox per model, ticked where the record names it; stored by name (a model added to the provider later is
    // not in it). Allowed: a change is stored at once (none left: revoked). Refused or revoked: the boxes say what
    // "Allow again" allows (the models the site had; a site refused in the frame had none, so the person ticks them).
    const boxes = modelBoxes(models, ids, (id) => consent.models.includes(id));
    const ticked = () => boxes.filter((b) => b.checked).map((b) => b.value);
    if (granted) {
      models.addEventListener('change', async () => {
        const now = ticked();
        if (now.length === 0) await store.set(consent.origin, 'revoked', consent.models);
        else await store.set(consent.origin, 'granted', now);
        await showConsents(main, store, ids);
      });
    }
    // Allowed: revoke it. Refused in the frame, or revoked here: the person may change their mind; the site's page,
    // when shown again, asks again and is served (docs/shared-models.md).
    const action = document.createElement('button');
    action.type = 'button';
    action.className = granted ? 'revoke' : 'allow';
    action.textContent = granted ? 'Revoke' : 'Allow again';
    if (!granted) {
      action.disabled = ticked().length === 0;
      models.addEventListener('change', () => (action.disabled = ticked().length === 0));
    }
    action.addEventListener('click', async () => {
      await store.set(consent.origin, granted ? 'revoked' : 'granted', granted ? consent.models : ticked());
      await showConsents(main, store, ids);
    });
    row.insertCell().append(action);
  }
  main.replaceChildren(title, intro, table);
}
