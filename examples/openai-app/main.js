// A minimal app using inpage through the openai SDK. `inpage/vite` (vite.config.js) puts inpage's files into the
// app and serves them in `vite dev` and `vite preview`.
import OpenAI from 'openai';
import { installInpage } from 'inpage';

const MODEL = 'svc-model-5.2-short-fast';
const $ = (id) => document.getElementById(id);

// 1. Register inpage's service worker and host the engine (one tab of the origin does).
const inpage = await installInpage({ models: [MODEL] });
window.inpage = inpage; // for the console

// 2. A key for this app (made once, kept in localStorage), and the SDK pointed at this origin's /v1.
const client = new OpenAI({ baseURL: inpage.baseURL, apiKey: await inpage.key('openai-app'), dangerouslyAllowBrowser: true });

const models = await client.models.list();
$('models').textContent = models.data.map((m) => `${m.id} (${m.state})`).join(', ');
$('status').textContent = 'Ready.';
document.querySelector('#ask button').disabled = false;

// 3. Ask.
$('ask').addEventListener('submit', async (event) => {
  event.preventDefault();
  const messages = [{ role: 'user', content: $('question').value }];
  const out = $('answer');
  out.textContent = '';
  $('status').textContent = 'Thinking…';
  try {
    if ($('stream').checked) {
      const stream = await client.chat.completions.create({ model: MODEL, messages, stream: true });
      for await (const chunk of stream) out.textContent += chunk.choices[0]?.delta?.content ?? '';
    } else {
      const completion = await client.chat.completions.create({ model: MODEL, messages });
      out.textContent = completion.choices[0].message.content;
    }
    $('status').textContent = 'Done.';
  } catch (err) {
    $('status').textContent = `Failed: ${err.message}`;
  }
});
