import { expect, test } from '@playwright/test';
import { chat, makeKey, openApp } from './helpers';

test('the page answers a chat completion through the service worker', async ({ page }) => {
  await openApp(page);
  const key = await makeKey(page);
  const answer = await chat(page, key, { model: 'svc-model-5.2-fast', messages: [{ role: 'user', content: 'hello there' }] });
  expect(answer.status).toBe(200);
  expect(answer.json).toMatchObject({ object: 'chat.completion', choices: [{ message: { content: 'Echo: hello there' } }] });
});
