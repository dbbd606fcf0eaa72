// The provider's own page (provider.html at top level): the sites the person let use this browser's models, and
// a way to revoke each. Revoking takes effect on the site's next request (the frame checks every one).
import type { ConsentStore } from './consent';

export async function showConsents(main: HTMLElement, store: ConsentStore): Promise<void> {
  const consents = (await store.list()).sort((a, b) => a.origin.localeCompare(b.origin));
  const title = document.createElement('h1');
  title.textContent = 'Sites that use this browser\'s models';
  const intro = document.createElement('p');
  intro.textContent = 'A site listed as allowed runs the models kept here, nothing else: it never sees this page\'s keys, stored responses or conversations.';
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
    row.insertCell().textContent = consent.models ? consent.models.join(', ') : 'all models';
    const action = row.insertCell();
    if (consent.state === 'granted') {
      const revoke = document.createElement('button');
      revoke.type = 'button';
      revoke.className = 'revoke';
      revoke.textContent = 'Revoke';
      revoke.addEventListener('click', async () => {
        await store.set(consent.origin, 'revoked', consent.models);
        await showConsents(main, store);
      });
      action.append(revoke);
    }
  }
  main.replaceChildren(title, intro, table);
}
