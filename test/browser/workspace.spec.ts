// The workspace page (index.html) on the test build: sign-up, API keys, models, playground, connect.
import { expect, test } from '@playwright/test';
import { auth, call } from './helpers';
import { goToArea, openChatSettings, openWorkspace, playgroundKey, registerThroughForm, screens, sendAndWait } from './workspace-steps';

const KEY_PATTERN = /^sk-svc-[A-Za-z0-9_-]{43}$/;

test('sign-up makes the local workspace and its organisation id, with no card and nothing leaving the device', async ({ page }) => {
  await openWorkspace(page);
  await expect(page.getByRole('heading', { name: 'Create your local workspace' })).toBeVisible();
  await expect(page.getByText('Nothing leaves this device.')).toBeVisible();
  await expect(page.getByText('No payment card')).toBeVisible();
  await expect(page.getByRole('navigation', { name: 'Workspace' })).toHaveCount(0);
  await screens(page, 'register');

  const org = await registerThroughForm(page, 'Acme prototypes');
  await expect(page.getByRole('status').filter({ hasText: `organisation id ${org}` })).toBeVisible();
  await expect(page.getByRole('heading', { name: 'API keys', level: 1 })).toBeFocused();

  // The org id shown is the owned_by of every model, and the workspace survives a reload.
  const key = await page.evaluate(async () => (await window.inpage!.keys.create({ name: 'probe' })).key);
  const models = await call(page, '/v1/models', { headers: auth(key) });
  expect(models.status).toBe(200);
  const data = (models.json as { data: { owned_by: string }[] }).data;
  expect(data).toHaveLength(6); // the five chat variants and svc-embed
  expect(new Set(data.map((m) => m.owned_by))).toEqual(new Set([org]));
  await page.reload();
  await expect(page.getByTestId('org-id')).toHaveText(org);
  await expect(page.getByText('Acme prototypes')).toBeVisible();
});

test('API keys: create with chosen models, copy once, list by display form, revoke at once in every tab', async ({ page, context }) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  await openWorkspace(page);
  await registerThroughForm(page);

  await page.getByLabel('Name').fill('ci-bot');
  await page.getByRole('checkbox', { name: /svc-vision/ }).uncheck();
  await page.getByRole('button', { name: 'Create key' }).click();

  const shown = page.getByRole('textbox', { name: 'The new API key' });
  await expect(shown).toHaveValue(KEY_PATTERN);
  const key = await shown.inputValue();
  await expect(page.getByText('Copy it now: it will not be shown again.')).toBeVisible();
  await page.getByRole('button', { name: 'Copy the new API key' }).click();
  await expect(page.getByRole('button', { name: 'Copy the new API key' })).toHaveText('Copied');
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(key);
  await screens(page, 'keys-new-key');

  // The key reaches the four models it was given, not svc-vision.
  const models = await call(page, '/v1/models', { headers: auth(key) });
  expect(models.status).toBe(200);
  expect((models.json as { data: { id: string }[] }).data.map((m) => m.id)).not.toContain('svc-vision');

  await page.getByRole('button', { name: 'Done, I saved it' }).click();
  await expect(page.getByRole('textbox', { name: 'The new API key' })).toHaveCount(0);
  expect(await page.content()).not.toContain(key);
  const display = `sk-svc-${key.slice(7, 11)}…${key.slice(-4)}`;
  const row = page.locator('tr', { hasText: 'ci-bot' });
  await expect(row.getByRole('rowheader')).toHaveText('ci-bot');
  await expect(row.locator('code')).toHaveText(display);
  await expect(row).toContainText('svc-model-5.2, svc-model-5.2-fast, svc-model-5.2-short, svc-model-5.2-short-fast');
  const cells = row.locator('td'); // key, models, created, last used, tokens used, status
  await expect(cells.nth(2)).toHaveText('just now');
  await expect(cells.nth(3)).toHaveText('just now'); // used by the /v1/models call above
  await expect(cells.nth(4)).toHaveText('0');

  // A second tab lists the key too; revoking in the first shows in the second without a reload.
  const other = await context.newPage();
  await openWorkspace(other, '/#keys');
  const otherRow = other.locator('tr', { hasText: 'ci-bot' });
  await expect(otherRow.getByRole('button', { name: `Revoke ci-bot (${display})` })).toBeVisible();

  await row.getByRole('button', { name: `Revoke ci-bot (${display})` }).click();
  await expect(row.getByRole('button', { name: `Revoke ci-bot (${display}) now` })).toBeFocused();
  await screens(page, 'keys-confirm-revoke');
  await row.getByRole('button', { name: `Revoke ci-bot (${display}) now` }).click();
  await expect(row.locator('.badge-revoked')).toContainText('Revoked');
  await expect(otherRow.locator('.badge-revoked')).toContainText('Revoked');
  await expect(otherRow.getByRole('button', { name: /Revoke/ })).toHaveCount(0);

  for (const tab of [page, other]) {
    const answer = await call(tab, '/v1/models', { headers: auth(key) });
    expect(answer.status).toBe(401);
    expect(answer.json).toMatchObject({ error: { code: 'invalid_api_key' } });
    expect(JSON.stringify(answer.json)).not.toContain(key);
  }
  await screens(page, 'keys');
});

test('models area: capabilities, states and download progress from the engine, load, unload, delete', async ({ page }) => {
  await openWorkspace(page);
  await registerThroughForm(page);
  await goToArea(page, 'Models');

  await expect(page.getByTestId('adapter-name')).toHaveText('inpage-test deterministic');
  const card = (id: string) => page.locator(`article[data-model="${id}"]`);
  for (const id of ['svc-model-5.2', 'svc-model-5.2-fast', 'svc-model-5.2-short', 'svc-model-5.2-short-fast', 'svc-vision']) {
    await expect(card(id).getByTestId('state')).toHaveText('Not downloaded');
    await expect(card(id)).toContainText('Context 4,096 tokens here');
  }
  await expect(card('svc-model-5.2')).toContainText('Thinks first');
  await expect(card('svc-model-5.2-fast')).toContainText('Answers directly');
  await expect(card('svc-vision')).toContainText('Vision: reads images');
  await expect(card('svc-model-5.2-short')).toContainText('Shares weights withsvc-model-5.2-short-fast');
  // The hosted service's figures are documented in docs/models.md, not shown as if this device had them.
  await expect(page.locator('article[data-model]')).not.toContainText(['1,000,000', '200,000']);
  await screens(page, 'models-not-downloaded');

  // Record every progress line and state the cards show while the engine downloads and loads.
  await page.evaluate(() => {
    const seen: { state: string; progress: string | null; value: string | null }[] = [];
    (window as unknown as { seen: typeof seen }).seen = seen;
    const target = document.querySelector('article[data-model="svc-model-5.2-short"]')!;
    new MutationObserver(() => {
      seen.push({
        state: target.getAttribute('data-state')!,
        progress: target.querySelector('.progress-text')?.textContent ?? null,
        value: target.querySelector('progress')?.getAttribute('value') ?? null,
      });
    }).observe(target, { subtree: true, childList: true, characterData: true, attributes: true });
  });
  await page.getByRole('button', { name: 'Download and load svc-model-5.2-short', exact: true }).click();
  await expect(card('svc-model-5.2-short').getByTestId('state')).toHaveText('Ready');
  await expect(card('svc-model-5.2-short-fast').getByTestId('state')).toHaveText('Ready'); // shared weights
  await expect(card('svc-model-5.2-short').getByTestId('size')).toHaveText('4.00 MiB');

  const seen = await page.evaluate(() => (window as unknown as { seen: { state: string; progress: string | null; value: string | null }[] }).seen);
  const states = seen.map((s) => s.state).filter((s, i, all) => s !== all[i - 1]);
  expect(states).toEqual(['not_downloaded', 'downloading', 'loading', 'ready']);
  const lines = [...new Set(seen.map((s) => s.progress).filter((p): p is string => p !== null))];
  expect(lines[0]).toBe('1.00 MiB of 4.00 MiB · 25% · measuring speed');
  expect(lines).toContainEqual(expect.stringMatching(/^2\.00 MiB of 4\.00 MiB · 50% · [\d.]+ (KiB|MiB|GiB)\/s · \d+ s left$/));
  expect(lines).toContainEqual(expect.stringMatching(/^4\.00 MiB of 4\.00 MiB · 100% · /));
  expect(new Set(seen.map((s) => s.value).filter(Boolean))).toEqual(new Set(['25', '50', '75', '100']));
  await screens(page, 'models-ready');

  await page.getByRole('button', { name: 'Unload svc-model-5.2-short', exact: true }).click();
  await expect(card('svc-model-5.2-short').getByTestId('state')).toHaveText('Cached');
  await expect(card('svc-model-5.2-short-fast').getByTestId('state')).toHaveText('Cached');
  await page.getByRole('button', { name: 'Load svc-model-5.2-short-fast', exact: true }).click();
  await expect(card('svc-model-5.2-short-fast').getByTestId('state')).toHaveText('Ready');

  await page.getByRole('button', { name: 'Delete svc-model-5.2-short-fast from cache', exact: true }).click();
  await expect(card('svc-model-5.2-short-fast')).toContainText('Delete 4.00 MiB of weights (shared with svc-model-5.2-short)?');
  await page.getByRole('button', { name: 'Delete svc-model-5.2-short-fast from cache now' }).click();
  await expect(card('svc-model-5.2-short-fast').getByTestId('state')).toHaveText('Not downloaded');
  await expect(card('svc-model-5.2-short').getByTestId('state')).toHaveText('Not downloaded');
  await expect(card('svc-model-5.2-short').getByTestId('download-size')).toHaveText('4.00 MiB (pretend weights from inpage-test; by the model’s manifest)');
});

test('playground: a session key, streamed answers, thinking in a collapsible block, tokens per second, stop', async ({ page }) => {
  await openWorkspace(page);
  await registerThroughForm(page);
  await goToArea(page, 'Playground');
  await expect(page.getByRole('heading', { name: 'The Playground needs a key' })).toBeVisible();
  await expect(page.getByLabel('Message')).toBeDisabled();
  await screens(page, 'playground-no-key');
  await playgroundKey(page);

  await page.getByLabel('Model').selectOption('svc-model-5.2-fast');
  await openChatSettings(page);
  await page.getByLabel('System prompt').fill('Answer briefly.');
  const first = await sendAndWait(page, 'hello there');
  await expect(first.locator('.answer')).toHaveText('Echo: hello there');
  await expect(first.locator('details.thinking')).toHaveCount(0);
  await expect(first.getByTestId('stats')).toHaveText(/^3 tokens · [\d.,]+ tokens\/s · first token after [\d.,]+ m?s · answered on this device$/);

  // A thinking variant: the thinking streams first and sits in a closed block that opens on demand.
  await page.getByLabel('Model').selectOption('svc-model-5.2');
  const second = await sendAndWait(page, 'why is the sky **blue**');
  await expect(second.locator('.answer')).toHaveText('Echo: why is the sky blue');
  await expect(second.locator('.answer strong')).toHaveText('blue');
  const thinking = second.locator('details.thinking');
  await expect(thinking).not.toHaveAttribute('open', '');
  await expect(thinking.locator('.thinking-text')).toBeHidden();
  await thinking.locator('summary').click();
  await expect(thinking.locator('.thinking-text')).toHaveText('Thinking about: why is the sky **blue**');
  await expect(second.getByTestId('stats')).toHaveText(/^13 tokens: 7 thinking, 6 answer · [\d.,]+ tokens\/s/);
  // Thinking that took under a tenth of a second (this engine has no delay) tells its tokens, never "0.0 s".
  await expect(thinking.locator('summary')).toHaveText(/^Thought(?: for (?!0[.,]0 )[\d.,]+ s|: 7 tokens)$/);
  await screens(page, 'playground');

  // The key works like any other: the Keys area books its use.
  await goToArea(page, 'API Keys');
  const row = page.locator('tr', { hasText: 'Playground' });
  await expect(row.locator('td').nth(4)).not.toHaveText('0'); // tokens used

  // Stop: a slow engine (40 ms a token), stopped mid-answer; the key stays in this tab's session.
  // The chat so far is kept across the reload; a new chat starts empty.
  await page.goto('/?tokenDelayMs=40#playground');
  await expect(page.getByTestId('pg-key')).toBeVisible();
  await expect(page.locator('.turn.assistant .answer')).toHaveText(['Echo: hello there', 'Echo: why is the sky blue']);
  await page.getByRole('button', { name: 'New chat' }).click();
  await expect(page.locator('.turn')).toHaveCount(0);
  await page.getByLabel('Model').selectOption('svc-model-5.2-fast');
  await page.getByLabel('Message').fill('count 500');
  await page.getByLabel('Message').press('Enter');
  const slow = page.locator('.turn.assistant').first();
  await expect(slow.locator('.answer')).toContainText('1 2 3 4 5');
  await page.getByRole('button', { name: 'Stop' }).click();
  await expect(slow).toHaveAttribute('data-status', 'stopped');
  await expect(slow.getByTestId('stats')).toHaveText(/^Stopped · ≈\d+ tokens/);
  await expect(page.getByRole('button', { name: 'Send' })).toBeVisible();
  const stoppedText = await slow.locator('.answer').textContent();
  expect(stoppedText).not.toContain('500');
  const after = await sendAndWait(page, 'count 3');
  await expect(after.locator('.answer')).toHaveText('1 2 3');
  await expect(slow.locator('.answer')).toHaveText(stoppedText!);
});

test('model output is sanitised markdown: HTML in a reply renders as text and no script runs', async ({ page }) => {
  const requested: string[] = [];
  page.on('request', (request) => requested.push(request.url()));
  await openWorkspace(page);
  await registerThroughForm(page);
  await goToArea(page, 'Playground');
  await playgroundKey(page);
  await page.evaluate(() => {
    (window as unknown as { pwned: string[] }).pwned = [];
  });

  const message = [
    'inline <img src=x onerror="window.pwned.push(1)"> and <script>window.pwned.push(2)</script> and **bold**',
    '',
    '<iframe src="javascript:window.parent.pwned.push(3)"></iframe>',
    '',
    '[click](javascript:window.pwned.push(4)) ![pixel](https://tracker.example/p.png)',
  ].join('\n');
  const answer = await sendAndWait(page, message);
  const md = answer.locator('.answer');
  await expect(md).toContainText('inline <img src=x onerror="window.pwned.push(1)"> and <script>window.pwned.push(2)</script> and bold');
  await expect(md).toContainText('<iframe src="javascript:window.parent.pwned.push(3)"></iframe>');
  await expect(md.locator('strong')).toHaveText('bold');
  await expect(md.locator('img, script, iframe, [onerror]')).toHaveCount(0);
  await expect(md.locator('a', { hasText: 'click' })).not.toHaveAttribute('href', /.*/);
  await expect(md.getByRole('link', { name: 'pixel (image)' })).toHaveAttribute('href', 'https://tracker.example/p.png');
  // The user's own message is plain text too.
  await expect(page.locator('.turn.user .user-text').first()).toHaveText(message);
  await expect(page.locator('.turn.user img, .turn.user script, .turn.user iframe')).toHaveCount(0);

  await md.locator('a', { hasText: 'click' }).click();
  expect(await page.evaluate(() => (window as unknown as { pwned: string[] }).pwned)).toEqual([]);
  expect(requested.filter((url) => url.includes('tracker.example'))).toEqual([]);
  await screens(page, 'playground-sanitised');
});

test('connect: base URL and snippets, with the key filled in on request; the fetch snippet runs as shown', async ({ page }) => {
  await openWorkspace(page);
  await registerThroughForm(page);
  await goToArea(page, 'Connect');
  const origin = new URL(page.url()).origin;
  await expect(page.getByTestId('base-url')).toHaveText(`${origin}/v1`);
  for (const snippet of ['fetch', 'openai', 'ai-sdk']) {
    await expect(page.locator(`[data-snippet="${snippet}"] pre`)).toContainText('YOUR_INPAGE_KEY');
  }
  await screens(page, 'connect');

  await goToArea(page, 'API Keys');
  await page.getByLabel('Name').fill('snippets');
  await page.getByRole('button', { name: 'Create key' }).click();
  const key = await page.getByRole('textbox', { name: 'The new API key' }).inputValue();
  await page.getByRole('button', { name: 'Fill into the Connect snippets' }).click();
  await expect(page.getByRole('heading', { name: 'Connect', level: 1 })).toBeFocused();
  for (const snippet of ['fetch', 'openai', 'ai-sdk']) {
    const pre = page.locator(`[data-snippet="${snippet}"] pre`);
    await expect(pre).toContainText(key);
    await expect(pre).toContainText(`${origin}/v1`);
  }
  await page.getByRole('button', { name: 'Test the connection' }).click();
  const tested = page.getByRole('status').filter({ hasText: 'GET /v1/models answered 200 with 6 models' }); // five chat variants and svc-embed
  await expect(tested).toBeVisible();
  await expect(tested).toContainText('svc-model-5.2 (not downloaded), svc-model-5.2-fast (not downloaded)');
  // The test runs a one-token completion on the model the snippets name, downloading it first (4 MiB of pretend
  // weights: no question), and the button has the focus again.
  await expect(tested).toContainText(/svc-model-5\.2-fast answered a one-token completion \(downloaded and loaded first\) \("Echo:"\) in [\d,]+ ms\./);
  await expect(page.getByRole('button', { name: 'Test the connection' })).toBeFocused();
  await page.getByRole('button', { name: 'Test the connection' }).click();
  await expect(tested).toContainText(/svc-model-5\.2-fast answered a one-token completion \("Echo:"\) in [\d,]+ ms\./);
  await screens(page, 'connect-key-filled');
  // One quote style in every snippet: no double-quoted strings in the code.
  for (const snippet of ['fetch', 'openai', 'ai-sdk']) {
    expect(await page.locator(`[data-snippet="${snippet}"] pre`).textContent()).not.toMatch(/"[^"\n]*"/);
  }

  // The fetch snippet, exactly as shown, answers from a script of the page.
  const fetchCode = (await page.locator('[data-snippet="fetch"] pre').textContent())!;
  const logged = await page.evaluate(async (code) => {
    const lines: unknown[] = [];
    const AsyncFunction = (async () => undefined).constructor as new (...args: string[]) => (console: unknown) => Promise<void>;
    await new AsyncFunction('console', code)({ log: (line: unknown) => lines.push(line) });
    return lines;
  }, fetchCode);
  expect(logged).toEqual(['Echo: Say hello in five words.']);

  // The openai SDK snippet too, with the real SDK (the test build's clients page carries it).
  const openaiCode = (await page.locator('[data-snippet="openai"] pre').textContent())!;
  await page.goto('/test/pages/clients.html');
  await page.evaluate(async () => {
    await window.inpageReady;
  });
  const sdkLogged = await page.evaluate(async (code) => {
    const lines: unknown[] = [];
    const body = code.replace("import OpenAI from 'openai';", '');
    const AsyncFunction = (async () => undefined).constructor as new (...args: string[]) => (OpenAI: unknown, console: unknown) => Promise<void>;
    await new AsyncFunction('OpenAI', 'console', body)(window.clients.OpenAI, { log: (line: unknown) => lines.push(line) });
    return lines.join('');
  }, openaiCode);
  expect(sdkLogged).toBe('Echo: Say hello in five words.');
});

test('hiding the key again puts the placeholder back, and a pasted revoked key is refused', async ({ page }) => {
  await openWorkspace(page);
  await registerThroughForm(page);
  const key = await page.evaluate(async () => (await window.inpage!.keys.create({ name: 'old' })).key);
  await goToArea(page, 'Connect');
  await page.getByLabel('Fill your key into the snippets').fill(key);
  await page.getByRole('button', { name: 'Fill in' }).click();
  await expect(page.locator('[data-snippet="fetch"] pre')).toContainText(key);
  await page.getByRole('button', { name: 'Hide my key again' }).click();
  await expect(page.locator('[data-snippet="fetch"] pre')).toContainText('YOUR_INPAGE_KEY');
  await expect(page.locator('[data-snippet="fetch"] pre')).not.toContainText(key);

  await page.evaluate(async () => {
    const [record] = await window.inpage!.keys.list();
    await window.inpage!.keys.revoke(record!.id);
  });
  await page.getByLabel('Fill your key into the snippets').fill(key);
  await page.getByRole('button', { name: 'Fill in' }).click();
  await expect(page.getByRole('alert')).toContainText('has been revoked');
  await expect(page.locator('[data-snippet="fetch"] pre')).not.toContainText(key);
});

test('playground: svc-vision takes an attached image, other variants offer no attach, a pasted key works', async ({ page }) => {
  await openWorkspace(page);
  await registerThroughForm(page);
  const key = await page.evaluate(async () => (await window.inpage!.keys.create({ name: 'pasted', models: ['svc-vision', 'svc-model-5.2-fast'] })).key);
  await goToArea(page, 'Playground');
  await page.getByLabel('Or paste a key').fill(key);
  await page.getByRole('button', { name: 'Use key' }).click();
  await expect(page.getByTestId('pg-key')).toContainText(key.slice(0, 11));
  // The key reaches two models: the others cannot be chosen.
  await expect(page.getByRole('option', { name: /^svc-model-5\.2 .*key cannot reach it/ })).toBeDisabled();

  await page.getByLabel('Model').selectOption('svc-model-5.2-fast');
  await expect(page.getByRole('button', { name: 'Attach image' })).toHaveCount(0);
  await page.getByLabel('Model').selectOption('svc-vision');
  // A 1×1 PNG.
  const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');
  await page.locator('#pg-image').setInputFiles({ name: 'dot.png', mimeType: 'image/png', buffer: png });
  await expect(page.getByRole('img', { name: 'Attached: dot.png' })).toBeVisible();
  const answer = await sendAndWait(page, 'what is in this picture');
  // The test engine reads an image part as "[image]": the image went to /v1 as an image_url part.
  await expect(answer.locator('.answer')).toHaveText('Echo: what is in this picture [image]');
  await expect(page.locator('.turn.user img')).toHaveAttribute('src', /^data:image\/png;base64,/);
  await expect(page.getByRole('img', { name: 'Attached: dot.png' })).toHaveCount(0);
  await screens(page, 'playground-vision');
});

test('a new key can go straight to the Playground, and revoking the Playground key in another tab takes it away', async ({ page, context }) => {
  await openWorkspace(page);
  await registerThroughForm(page);
  await page.getByLabel('Name').fill('for the playground');
  await page.getByRole('button', { name: 'Create key' }).click();
  const key = await page.getByRole('textbox', { name: 'The new API key' }).inputValue();
  await page.getByRole('button', { name: 'Use in the Playground' }).click();
  // With a key there, the focus goes on to the message box.
  await expect(page.getByLabel('Message')).toBeFocused();
  await expect(page.getByTestId('pg-key')).toHaveText(`sk-svc-${key.slice(7, 11)}…${key.slice(-4)}`);
  await expect(page.locator('.key-bar')).toContainText('(for the playground), kept for this tab only.');
  const answer = await sendAndWait(page, 'first');
  await expect(answer.locator('.answer')).toHaveText('Echo: first');

  const other = await context.newPage();
  await openWorkspace(other, '/#keys');
  await other.getByRole('button', { name: /^Revoke for the playground/ }).click();
  await other.getByRole('button', { name: /^Revoke for the playground .* now$/ }).click();
  await expect(other.locator('tr', { hasText: 'for the playground' }).locator('.badge-revoked')).toBeVisible();

  // The first tab hears of it at once: the playground asks for a key again, and the key gets 401.
  await expect(page.getByRole('heading', { name: 'The Playground needs a key' })).toBeVisible();
  await expect(page.getByLabel('Message')).toBeDisabled();
  const refused = await call(page, '/v1/chat/completions', {
    method: 'POST',
    headers: auth(key),
    body: JSON.stringify({ model: 'svc-model-5.2-fast', messages: [{ role: 'user', content: 'again' }] }),
  });
  expect(refused.status).toBe(401);
  expect(refused.json).toMatchObject({ error: { code: 'invalid_api_key' } });
});

test('models area in a second tab: the other tab runs the engine; closing it hands the controls over', async ({ page, context }) => {
  await openWorkspace(page);
  await registerThroughForm(page);
  const second = await context.newPage();
  await openWorkspace(second, '/#models');
  await expect(second.getByText('Another open inpage tab runs the engine for this origin')).toBeVisible();
  await expect(second.locator('article[data-model="svc-model-5.2"]').getByTestId('state')).toHaveText('In another tab');
  await expect(second.getByRole('button', { name: /^Download and load/ })).toHaveCount(0);
  await screens(second, 'models-second-tab');

  await page.close();
  await expect(second.getByText('Another open inpage tab runs the engine for this origin')).toHaveCount(0);
  await expect(second.getByTestId('adapter-name')).toHaveText('inpage-test deterministic');
  await expect(second.locator('article[data-model="svc-model-5.2"]').getByTestId('state')).toHaveText('Not downloaded');
  await second.getByRole('button', { name: 'Download and load svc-model-5.2-fast', exact: true }).click();
  await expect(second.locator('article[data-model="svc-model-5.2-fast"]').getByTestId('state')).toHaveText('Ready');
});

test('the Playground reuses one key per workspace across tabs and visits; a revoked key can be deleted from the list', async ({ page, context }) => {
  await openWorkspace(page);
  await registerThroughForm(page);
  await goToArea(page, 'Playground');
  await playgroundKey(page);
  const shown = await page.getByTestId('pg-key').textContent();
  await expect(page.locator('.key-bar')).toContainText('the workspace’s Playground key, reused by every tab');

  // Another tab and a reload use the same key, without a click and without a new key.
  const other = await context.newPage();
  await openWorkspace(other, '/#playground');
  await expect(other.getByTestId('pg-key')).toHaveText(shown!);
  await page.reload();
  await expect(page.getByTestId('pg-key')).toHaveText(shown!);
  // Forgetting it in a tab and asking again gives the same key back.
  await page.getByRole('button', { name: 'Forget key' }).click();
  await page.getByRole('button', { name: 'Use the Playground key' }).click();
  await expect(page.getByTestId('pg-key')).toHaveText(shown!);
  expect((await page.evaluate(() => window.inpage!.keys.list())).filter((k) => k.name === 'Playground')).toHaveLength(1);

  // Revoked: the next Playground key is a new one; the revoked one can be deleted from the list.
  await goToArea(page, 'API Keys');
  const row = page.locator('tr', { hasText: shown! });
  await row.getByRole('button', { name: /^Revoke Playground/ }).click();
  await row.getByRole('button', { name: /^Revoke Playground .* now$/ }).click();
  await expect(row.locator('.badge-revoked')).toBeVisible();
  await expect(row.locator('code')).toHaveCSS('font-family', /mono/i);
  await row.getByRole('button', { name: `Delete Playground (${shown}) from the list` }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Revoked key Playground deleted from the list.' })).toBeVisible();
  await expect(page.locator('tr', { hasText: shown! })).toHaveCount(0);
  await expect(other.locator('tr', { hasText: shown! })).toHaveCount(0);
  await goToArea(page, 'Playground');
  await page.getByRole('button', { name: 'Create a Playground key' }).click();
  await expect(page.getByTestId('pg-key')).not.toHaveText(shown!);
  // The other tab follows: it drops the deleted key and takes up the workspace's new one.
  await expect(other.getByTestId('pg-key')).toHaveText((await page.getByTestId('pg-key').textContent())!);
});
