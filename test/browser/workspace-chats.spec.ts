// The Playground as a daily tool: conversations kept in IndexedDB, parameters, message actions, model switches
// with images in the history, failed sends. Everything as a person does it, asserting what is on screen.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, expect, test, type Download, type Page } from '@playwright/test';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../../playwright.config';
import { chatAction, goToArea, openChatSettings, openWorkspace, playgroundKey, registerThroughForm, screens, sendAndWait, tabTo } from './workspace-steps';

/** A 1×1 PNG. */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');

async function startPlayground(page: Page, path = '/'): Promise<void> {
  await openWorkspace(page, path);
  await registerThroughForm(page);
  await goToArea(page, 'Playground');
  await playgroundKey(page);
}

const chatList = (page: Page) => page.getByRole('navigation', { name: 'Chats' });

/** The conversations as stored in IndexedDB (what a reload will read). */
function stored(page: Page): Promise<{ title: string; draft: string; model: string; turns: { role: string; text: string }[] }[]> {
  return page.evaluate(
    () =>
      new Promise((resolve, reject) => {
        const open = indexedDB.open('inpage-conversations');
        open.onerror = () => reject(open.error);
        open.onsuccess = () => {
          const get = open.result.transaction('conversations').objectStore('conversations').getAll();
          get.onsuccess = () => {
            open.result.close();
            resolve(get.result);
          };
        };
      }),
  );
}

async function downloaded(page: Page, button: string): Promise<string> {
  const [file] = await Promise.all([page.waitForEvent('download'), chatAction(page, button)]);
  return readFile((await (file as Download).path())!, 'utf8');
}

test('chats: start, switch, rename and delete; each keeps its model and system prompt; drafts and chats survive area changes and reloads; export as JSON and Markdown', async ({
  page,
}) => {
  await startPlayground(page);
  await sendAndWait(page, 'hello one');
  await expect(page.getByTestId('chat-title')).toHaveText('hello one');

  await chatList(page).getByRole('button', { name: 'New chat' }).click();
  await expect(page.locator('.turns .empty')).toHaveText('Say something to start. Answers stream in as the model writes them.');
  await expect(page.locator('.turn')).toHaveCount(0);
  await expect(page.getByTestId('chat-title')).toHaveText('New chat');
  await page.getByLabel('Model').selectOption('svc-model-5.2-short-fast');
  await openChatSettings(page);
  await page.getByLabel('System prompt').fill('Be brief.');
  const counted = await sendAndWait(page, 'count 3');
  await expect(counted.locator('.answer')).toHaveText('1 2 3');

  // Rename with the keyboard: F2 on the chat's row (the list is one Tab stop) opens the field with the name
  // selected, Enter saves, and the focus is back on the row.
  await tabTo(page, '.chat-open[aria-current="true"]');
  await page.keyboard.press('F2');
  await expect(page.getByLabel('New name for the chat “count 3”')).toBeFocused();
  await page.keyboard.type('Counting');
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('chat-title')).toHaveText('Counting');
  await expect(chatList(page).locator('.chat-title')).toHaveText(['Counting', 'hello one']);
  await expect(chatList(page).locator('.chat-open[aria-current="true"]')).toBeFocused();

  // Switching brings back that chat's turns, model and system prompt.
  await chatList(page)
    .getByRole('button', { name: /^hello one/ })
    .click();
  await expect(page.getByTestId('chat-title')).toHaveText('hello one');
  await expect(page.locator('.turn.assistant .answer')).toHaveText(['Echo: hello one']);
  await expect(page.getByLabel('Model')).toHaveValue('svc-model-5.2-fast');
  await expect(page.getByLabel('System prompt')).toHaveValue('');
  await chatList(page)
    .getByRole('button', { name: /^Counting/ })
    .click();
  await expect(page.getByLabel('Model')).toHaveValue('svc-model-5.2-short-fast');
  await expect(page.getByLabel('System prompt')).toHaveValue('Be brief.');

  // A draft stays through another area and a reload.
  await page.getByLabel('Message').fill('unsent words');
  await goToArea(page, 'Models');
  await goToArea(page, 'Playground');
  await expect(page.getByLabel('Message')).toHaveValue('unsent words');
  await expect.poll(async () => (await stored(page)).find((c) => c.title === 'Counting')?.draft).toBe('unsent words');
  await page.reload();
  await expect(page.getByTestId('chat-title')).toHaveText('Counting');
  await expect(page.getByLabel('Message')).toHaveValue('unsent words');
  await expect(page.locator('.turn.assistant .answer')).toHaveText(['1 2 3']);
  await screens(page, 'playground-chats');

  // Export: JSON holds the messages exactly as sent to /v1; Markdown reads as a transcript.
  const json = JSON.parse(await downloaded(page, 'Export JSON')) as Record<string, unknown>;
  expect(json).toEqual({
    title: 'Counting',
    model: 'svc-model-5.2-short-fast',
    messages: [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'count 3' },
      { role: 'assistant', content: '1 2 3' },
    ],
  });
  const markdown = await downloaded(page, 'Export Markdown');
  expect(markdown).toBe(
    [
      '# Counting',
      '',
      'Model: `svc-model-5.2-short-fast`',
      '',
      '## System',
      '',
      'Be brief.',
      '',
      '## You',
      '',
      'count 3',
      '',
      '## svc-model-5.2-short-fast',
      '',
      '1 2 3',
      '',
    ].join('\n'),
  );

  // Delete asks once; the other chat opens, and the deleted one stays gone after a reload.
  // With the mouse, behind the chat's own "⋯" menu.
  await chatList(page).getByLabel('Actions for the chat “Counting”').click();
  await chatList(page).getByRole('button', { name: 'Delete the chat “Counting”', exact: true }).click();
  await expect(page.getByRole('button', { name: 'Delete the chat “Counting” now' })).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(chatList(page).locator('.chat-title')).toHaveText(['hello one']);
  await expect(page.getByTestId('chat-title')).toHaveText('hello one');
  await page.reload();
  await expect(chatList(page).locator('.chat-title')).toHaveText(['hello one']);
});

test('an answer keeps streaming while the person looks at another area; the thinking block is open while it streams, then folds with its time', async ({
  page,
}) => {
  await startPlayground(page, '/?tokenDelayMs=100');
  await page.getByLabel('Model').selectOption('svc-model-5.2');
  // 40 words: about 4 s of thinking at 100 ms a token.
  const words = Array.from({ length: 40 }, (_, i) => `w${i}`).join(' ');
  await page.getByLabel('Message').fill(words);
  await page.getByLabel('Message').press('Enter');
  const answer = page.locator('.turn.assistant').first();
  const thinking = answer.locator('details.thinking');
  await expect(thinking.locator('summary')).toHaveText('Thinking…');
  await expect(thinking).toHaveAttribute('open', '');
  await expect(thinking.locator('.thinking-text')).toBeVisible();
  await goToArea(page, 'Connect');
  await goToArea(page, 'Playground');
  await expect(answer).toHaveAttribute('data-status', 'done', { timeout: 30_000 });
  await expect(answer.locator('.answer')).toHaveText(`Echo: ${words}`, { timeout: 30_000 });
  await expect(thinking).not.toHaveAttribute('open', '');
  await expect(thinking.locator('summary')).toHaveText(/^Thought for \d+[.,]\d s$/);
  await expect(answer.getByTestId('stats')).toHaveText(/^83 tokens: 42 thinking, 41 answer · /);
});

test('a failed send keeps the text in the composer and leaves no message behind; the next send carries no dangling turn', async ({ page }) => {
  await startPlayground(page);
  // Fails before its first token.
  await page.getByLabel('Message').fill('fail after 0');
  await page.getByRole('button', { name: 'Send' }).click();
  await expect(page.getByRole('alert')).toContainText('Not sent:');
  await expect(page.getByRole('alert')).toContainText('Your message is back in the box below.');
  await expect(page.getByRole('alert')).toHaveCount(1);
  await expect(page.getByLabel('Message')).toHaveValue('fail after 0');
  // The chat is not named after a message that was not sent.
  await expect(page.getByTestId('chat-title')).toHaveText('New chat');
  await expect(page.locator('.chat-title')).toHaveText(['New chat']);
  await expect(page.locator('.turn.user, .turn.assistant')).toHaveCount(0);
  await screens(page, 'playground-failed-send');

  await page.getByLabel('Message').fill('hello after');
  const answer = await sendAndWait(page, 'hello after');
  await expect(answer.locator('.answer')).toHaveText('Echo: hello after');
  await expect(page.getByRole('alert')).toHaveCount(0);
  const json = JSON.parse(await downloaded(page, 'Export JSON')) as { messages: unknown[] };
  expect(json.messages).toEqual([
    { role: 'user', content: 'hello after' },
    { role: 'assistant', content: 'Echo: hello after' },
  ]);
});

test('an image turn, then a text model: the image is left out, said once in the chat, and every send works', async ({ page }) => {
  await startPlayground(page);
  await page.getByLabel('Model').selectOption('svc-vision');
  await page.locator('#pg-image').setInputFiles({ name: 'dot.png', mimeType: 'image/png', buffer: PNG });
  const seen = await sendAndWait(page, 'what is in this picture');
  await expect(seen.locator('.answer')).toHaveText('Echo: what is in this picture [image]');

  await page.getByLabel('Model').selectOption('svc-model-5.2-fast');
  const next = await sendAndWait(page, 'and now in words');
  await expect(next.locator('.answer')).toHaveText('Echo: and now in words');
  const note = page.locator('.turn.note');
  await expect(note).toHaveCount(1);
  await expect(note).toHaveText(/^Images are left out from here on: svc-model-5\.2-fast reads text only/);
  const again = await sendAndWait(page, 'once more');
  await expect(again.locator('.answer')).toHaveText('Echo: once more');
  await expect(note).toHaveCount(1);
  await expect(page.getByRole('alert')).toHaveCount(0);
  const json = JSON.parse(await downloaded(page, 'Export JSON')) as { messages: { content: unknown }[] };
  expect(json.messages.map((m) => m.content)).toEqual([
    'what is in this picture',
    'Echo: what is in this picture [image]',
    'and now in words',
    'Echo: and now in words',
    'once more',
    'Echo: once more',
  ]);
  await screens(page, 'playground-image-then-text');

  // Back on svc-vision the image is sent again.
  await page.getByLabel('Model').selectOption('svc-vision');
  const back = await sendAndWait(page, 'and the picture');
  await expect(back.locator('.answer')).toHaveText('Echo: and the picture');
  const withImage = JSON.parse(await downloaded(page, 'Export JSON')) as { messages: { content: unknown }[] };
  expect(withImage.messages[0]!.content).toEqual([
    { type: 'text', text: 'what is in this picture' },
    { type: 'image_url', image_url: { url: expect.stringMatching(/^data:image\/png;base64,/) } },
  ]);
});

test('parameters, thinking off, the request as code; copy, regenerate, edit and resend; highlighted code with its copy button', async ({ page, context }) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  await startPlayground(page);
  await page.getByLabel('Model').selectOption('svc-model-5.2');

  // Parameters from the keyboard: Settings opens beside the chat with the focus in it.
  await tabTo(page, 'button[aria-controls="pg-settings"]');
  await page.keyboard.press('Enter');
  // The focus goes to the panel's Done, not into the system prompt (a phone would raise its keyboard).
  await expect(page.getByRole('button', { name: 'Done' })).toBeFocused();
  await tabTo(page, '.pg-params summary');
  await page.keyboard.press('Enter');
  await page.getByLabel('Max tokens').fill('2');
  await page.getByRole('checkbox', { name: /Thinking/ }).uncheck();
  await expect(page.locator('.pg-params summary')).toHaveText('Parameters (2 set)');
  const cut = await sendAndWait(page, 'count 10');
  await expect(cut.locator('.answer')).toHaveText('1 2');
  await expect(cut.locator('details.thinking')).toHaveCount(0);
  await expect(cut.getByTestId('stats')).toContainText('cut at the length limit');

  // The request as code, with the parameters and the composer's text.
  await page.getByLabel('Message').fill('count 4');
  await chatAction(page, 'View as code');
  const code = page.locator('#pg-code-text');
  await expect(code).toContainText('"max_tokens": 2');
  await expect(code).toContainText('"reasoning_effort": "none"');
  await expect(code).toContainText('"content": "count 4"');
  // The fetch code runs as shown (with a key put in) and prints the answer.
  const key = await page.evaluate(async () => (await window.inpage!.keys.create({ name: 'code' })).key);
  const fetchCode = (await code.textContent())!.replace('YOUR_INPAGE_KEY', key);
  const logged = await page.evaluate(async (source) => {
    const lines: unknown[] = [];
    const AsyncFunction = (async () => undefined).constructor as new (...args: string[]) => (console: unknown) => Promise<void>;
    await new AsyncFunction('console', source)({ log: (line: unknown) => lines.push(line) });
    return lines;
  }, fetchCode);
  expect(logged).toEqual(['1 2']);
  await page.getByRole('button', { name: 'openai SDK' }).click();
  await expect(code).toContainText('await client.chat.completions.create(');
  await expect(code).toContainText('console.log(text);');
  await chatAction(page, 'Hide code');
  await page.getByLabel('Message').fill('');

  // Back to defaults: regenerate answers the same message again, in place.
  await page.getByLabel('Max tokens').fill('');
  await page.getByRole('checkbox', { name: /Thinking/ }).check();
  await page.getByRole('button', { name: 'Regenerate the last answer' }).click();
  const regenerated = page.locator('.turn.assistant').first();
  await expect(regenerated).toHaveAttribute('data-status', 'done');
  await expect(regenerated.locator('.answer')).toHaveText('1 2 3 4 5 6 7 8 9 10');
  await expect(regenerated.locator('details.thinking')).toHaveCount(1);
  await expect(page.locator('.turn.user, .turn.assistant')).toHaveCount(2);

  // Edit and resend replaces the turn and what came after.
  await page.getByRole('button', { name: 'Edit turn 1' }).click();
  await expect(page.getByLabel('Edit your text')).toBeFocused();
  await page.getByLabel('Edit your text').fill('count 3');
  await page.keyboard.press('Enter');
  await expect(page.locator('.turn.user .user-text')).toHaveText(['count 3']);
  await expect(page.locator('.turn.assistant')).toHaveAttribute('data-status', 'done');
  await expect(page.locator('.turn.assistant .answer')).toHaveText(['1 2 3']);

  // Copy an answer.
  await page.getByRole('button', { name: 'Copy the answer (turn 2)' }).click();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe('1 2 3');

  // A code block: highlighted once complete, with its own copy button above it.
  const withCode = await sendAndWait(page, 'code:\n```js\nconst answer = 42; // the answer\n```');
  await expect(withCode.locator('pre code .hljs-keyword').first()).toHaveText('const');
  await expect(withCode.locator('pre code .hljs-comment')).toHaveText('// the answer');
  await withCode.getByRole('button', { name: 'Copy code block 1' }).click();
  await expect(withCode.getByRole('button', { name: 'Copy code block 1' })).toHaveText('Copied');
  expect((await page.evaluate(() => navigator.clipboard.readText())).trim()).toBe('const answer = 42; // the answer');
  const [button, pre] = await Promise.all([withCode.getByRole('button', { name: 'Copy code block 1' }).boundingBox(), withCode.locator('pre').boundingBox()]);
  expect(button!.y + button!.height).toBeLessThanOrEqual(pre!.y + 0.5); // above the code, never over it
  await screens(page, 'playground-code');
});

test('the composer and model picker stay on screen in a long chat', async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  await startPlayground(page);
  for (let i = 0; i < 6; i++) await sendAndWait(page, `count ${40 + i}`);
  await page.mouse.wheel(0, -100000);
  await page.locator('.turn.user').first().scrollIntoViewIfNeeded();
  for (const control of [page.getByLabel('Message'), page.getByLabel('Model')]) {
    const box = (await control.boundingBox())!;
    expect(box.y).toBeGreaterThanOrEqual(0);
    expect(box.y + box.height).toBeLessThanOrEqual(800);
  }
});

test('chats and a draft survive closing and reopening the browser', async ({ baseURL }) => {
  const profile = await mkdtemp(join(tmpdir(), 'inpage-profile-'));
  const launch = () => chromium.launchPersistentContext(profile, { executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS, baseURL });
  try {
    let context = await launch();
    let page = context.pages()[0] ?? (await context.newPage());
    await startPlayground(page);
    await sendAndWait(page, 'remember me');
    await page.getByLabel('Message').fill('half typed');
    await expect.poll(async () => (await stored(page))[0]?.draft).toBe('half typed');
    await context.close();

    context = await launch();
    page = context.pages()[0] ?? (await context.newPage());
    await openWorkspace(page, '/#playground');
    await expect(page.getByTestId('chat-title')).toHaveText('remember me');
    await expect(page.locator('.turn.assistant .answer')).toHaveText(['Echo: remember me']);
    await expect(page.getByLabel('Message')).toHaveValue('half typed');
    // The workspace's Playground key is still there: the next send works without choosing one again.
    const answer = await sendAndWait(page, 'and after the restart');
    await expect(answer.locator('.answer')).toHaveText('Echo: and after the restart');
    await context.close();
  } finally {
    await rm(profile, { recursive: true, force: true });
  }
});
