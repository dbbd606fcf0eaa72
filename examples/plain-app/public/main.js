// A plain ES module: inpage's setup module is served beside the page (build.mjs copies it), imported by URL.
// The app's own service worker (sw.js) runs inpage; installInpage({serviceWorker: 'own'}) registers nothing.
import { installInpage } from '/inpage.js';

const MODEL = 'svc-model-5.2-short-fast';
const $ = (id) => document.getElementById(id);

try {
  await navigator.serviceWorker.register('/sw.js', { scope: '/' });
  const inpage = await installInpage({ models: [MODEL], serviceWorker: 'own' });
  window.inpage = inpage; // for the console
  const key = await inpage.key('plain-app');
  const v1 = (path, body) =>
    fetch(`${inpage.baseURL}${path}`, {
      method: body ? 'POST' : 'GET',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: body && JSON.stringify(body),
    }).then((res) => res.json());

  const models = await v1('/models');
  $('models').textContent = models.data.map((m) => `${m.id} (${m.state})`).join(', ');
  $('status').textContent = 'Ready.';
  document.querySelector('#ask button').disabled = false;

  $('ask').addEventListener('submit', async (event) => {
    event.preventDefault();
    $('status').textContent = 'Thinking…';
    const answer = await v1('/chat/completions', { model: MODEL, messages: [{ role: 'user', content: $('question').value }] });
    $('answer').textContent = answer.choices?.[0]?.message?.content ?? answer.error?.message;
    $('status').textContent = answer.error ? `Failed: ${answer.error.message}` : 'Done.';
  });
} catch (err) {
  $('status').textContent = `Failed: ${err.message}`;
}
