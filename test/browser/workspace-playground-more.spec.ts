// What peers' playgrounds have, in the Playground: more parameters (stop sequences, seed, penalties, a JSON
// schema), the versions of a regenerated answer, a partial answer kept when the stream breaks off.
import { expect, test, type Page } from '@playwright/test';
import { chatAction, goToArea, openChatSettings, openWorkspace, playgroundKey, registerThroughForm, sendAndWait } from './workspace-steps';

async function startPlayground(page: Page, path = '/'): Promise<void> {
  await openWorkspace(page, path);
  await registerThroughForm(page);
  await goToArea(page, 'Playground');
  await playgroundKey(page);
}

test('parameters: stop sequences, seed and penalties are sent; a JSON schema answers as json_schema, and one that is not JSON stops the send', async ({
  page,
}) => {
  await startPlayground(page);
  await openChatSettings(page);
  await page.getByText('Parameters').click();
  // One token: no rate is made up from it.
  await page.getByLabel('Max tokens').fill('1');
  const one = await sendAndWait(page, 'hello');
  await expect(one.getByTestId('stats')).toHaveText(/^1 token · first token after [\d.,]+ m?s · cut at the length limit · answered on this device$/);
  await page.getByLabel('Max tokens').fill('');
  await page.getByLabel('Stop sequences').fill('5\nnever');
  await page.getByLabel('Seed').fill('42');
  await page.getByLabel('Presence penalty').fill('0.5');
  await page.getByLabel('Frequency penalty').fill('-0.5');
  await expect(page.locator('.pg-params summary')).toHaveText('Parameters (4 set)');
  // The answer ends before the first stop sequence.
  const cut = await sendAndWait(page, 'count 9');
  await expect(cut.locator('.answer')).toHaveText('1 2 3 4');

  await page.getByLabel('Response format').selectOption('json_schema');
  const schema = page.getByLabel('JSON schema');
  await schema.fill(JSON.stringify({ type: 'object', properties: { city: { type: 'string' }, people: { type: 'integer' } }, required: ['city', 'people'] }));
  await page.getByLabel('Message').fill('a city');
  await chatAction(page, 'View as code');
  const code = page.locator('#pg-code-text');
  await expect(code).toContainText('"seed": 42');
  await expect(code).toContainText('"presence_penalty": 0.5');
  await expect(code).toContainText('"frequency_penalty": -0.5');
  await expect(code).toContainText('"stop": [\n');
  await expect(code).toContainText('"type": "json_schema"');
  // The test engine answers a schema with its smallest instance.
  const json = await sendAndWait(page, 'a city');
  // Shown indented, in a block labelled json.
  await expect(json.locator('.answer .code-language')).toHaveText('json');
  expect(JSON.parse((await json.locator('.answer pre code').textContent())!)).toEqual({ city: 'a', people: 0 });

  // A schema that is not JSON: said in the settings and the composer; nothing is sent.
  await schema.fill('{"type": ');
  await expect(page.locator('#pg-schema-hint')).toContainText('not a JSON object');
  await page.getByLabel('Message').fill('again');
  await expect(page.getByRole('button', { name: 'Send' })).toBeDisabled();
  await expect(page.locator('form.composer')).toContainText('The JSON schema in Settings is not a JSON object');
  await page.getByLabel('Response format').selectOption('text');
  await expect(page.getByRole('button', { name: 'Send' })).toBeEnabled();
});

test('regenerate keeps the earlier answer as a version (‹ 1/2 ›), across a reload', async ({ page }) => {
  await startPlayground(page);
  const first = await sendAndWait(page, 'hello');
  await expect(first.locator('.who')).toHaveText('svc-model-5.2-fast');
  // Asked again of another model, so the two versions differ.
  await page.getByLabel('Model').selectOption('svc-model-5.2-short-fast');
  await page.getByRole('button', { name: 'Regenerate the last answer' }).click();
  const answer = page.locator('.turn.assistant').first();
  await expect(answer).toHaveAttribute('data-status', 'done');
  await expect(page.locator('.turn.assistant')).toHaveCount(1);
  await expect(answer.locator('.who')).toHaveText('svc-model-5.2-short-fast');
  await expect(answer.getByTestId('version')).toHaveText('2/2');
  await answer.getByRole('button', { name: 'Previous version of the answer' }).click();
  await expect(answer.getByTestId('version')).toHaveText('1/2');
  await expect(answer.locator('.who')).toHaveText('svc-model-5.2-fast');
  await expect(answer.locator('.answer')).toHaveText('Echo: hello');
  await expect(answer.getByRole('button', { name: 'Previous version of the answer' })).toBeDisabled();

  // A third version; the shown one is what the chat continues from, and all stay after a reload.
  await page.getByRole('button', { name: 'Regenerate the last answer' }).click();
  await expect(answer).toHaveAttribute('data-status', 'done');
  await expect(answer.getByTestId('version')).toHaveText('3/3');
  await page.reload();
  await page.evaluate(async () => {
    await window.inpageReady;
  });
  await expect(answer.getByTestId('version')).toHaveText('3/3');
  await answer.getByRole('button', { name: 'Previous version of the answer' }).click();
  await expect(answer.getByTestId('version')).toHaveText('2/3');
  await expect(answer.locator('.who')).toHaveText('svc-model-5.2-short-fast');
});

test('an answer that breaks off keeps what came, with the error beside it; the message stays sent', async ({ page }) => {
  await startPlayground(page);
  await page.getByLabel('Message').fill('fail after 3');
  await page.getByRole('button', { name: 'Send' }).click();
  const answer = page.locator('.turn.assistant').first();
  await expect(answer).toHaveAttribute('data-status', 'failed');
  await expect(answer.locator('.answer')).toHaveText('tick tick tick');
  await expect(answer.getByRole('alert')).toContainText('The answer broke off:');
  await expect(answer.getByRole('alert')).toContainText('failed on purpose after 3 tokens');
  await expect(page.locator('.turn.user .user-text')).toHaveText(['fail after 3']);
  await expect(page.getByLabel('Message')).toHaveValue('');
  // Regenerate asks again; the broken answer stays as the first version.
  await page.getByRole('button', { name: 'Regenerate the last answer' }).click();
  await expect(answer.getByTestId('version')).toHaveText('2/2');
});

test('a new chat starts from the default settings, "Duplicate chat" copies one with its settings, and search finds chats by their words', async ({ page }) => {
  await startPlayground(page);
  await page.getByLabel('Model').selectOption('svc-model-5.2-short-fast');
  await openChatSettings(page);
  await page.getByLabel('System prompt').fill('Be brief.');
  await page.getByText('Parameters').click();
  await page.getByLabel('Seed').fill('3');
  await sendAndWait(page, 'apples and pears');
  const chats = page.getByRole('navigation', { name: 'Chats' });

  // New chat: the same model, no system prompt, no parameters set.
  await chats.getByRole('button', { name: 'New chat' }).click();
  await expect(page.getByTestId('chat-title')).toHaveText('New chat');
  await expect(page.getByLabel('Model')).toHaveValue('svc-model-5.2-short-fast');
  await expect(page.getByLabel('System prompt')).toHaveValue('');
  await expect(page.getByLabel('Seed')).toHaveValue('');
  await sendAndWait(page, 'plums');

  // Duplicate: the turns and the settings come along, under a new name.
  await chats.getByRole('button', { name: /^apples and pears/ }).click();
  await chatAction(page, 'Duplicate chat');
  await expect(page.getByTestId('chat-title')).toHaveText('apples and pears (copy)');
  await expect(page.locator('.turn.assistant .answer')).toHaveText(['Echo: apples and pears']);
  await expect(page.getByLabel('System prompt')).toHaveValue('Be brief.');
  await expect(page.getByLabel('Seed')).toHaveValue('3');
  await expect(chats.locator('.chat-title')).toHaveText(['apples and pears (copy)', 'plums', 'apples and pears']);

  // Search: by title or by what was said, every word.
  const search = chats.getByLabel('Search chats');
  await search.fill('PEARS');
  await expect(chats.locator('.chat-title')).toHaveText(['apples and pears (copy)', 'apples and pears']);
  await search.fill('echo plums');
  await expect(chats.locator('.chat-title')).toHaveText(['plums']);
  await search.fill('cherries');
  await expect(chats.locator('.chat-title')).toHaveCount(0);
  await expect(chats.getByRole('status')).toHaveText('No chat has those words.');
  await search.fill('');
  await expect(chats.locator('.chat-title')).toHaveCount(3);
});

test('functions: defined with a JSON schema, the call the model makes shows with its arguments, the typed result continues the chat', async ({ page }) => {
  await startPlayground(page);
  await openChatSettings(page);
  await page.getByText('Functions', { exact: true }).click();
  await page.getByRole('button', { name: 'Add an example' }).click();
  await expect(page.getByLabel('Function definitions (JSON)')).toHaveValue(/"name": "get_weather"/);
  await expect(page.locator('.pg-functions summary')).toHaveText('Functions (1)');
  // The test engine calls a function the message names, with the smallest arguments its schema allows.
  await page.getByLabel('Message').fill('get_weather for Paris');
  await page.getByRole('button', { name: 'Send' }).click();
  const call = page.getByTestId('tool-call');
  await expect(call).toContainText('Calls get_weather');
  await expect(call.getByLabel('Arguments of get_weather')).toHaveText('{"city":"a"}');
  const send = page.getByRole('button', { name: 'Send the result' });
  await expect(send).toBeDisabled();
  await page.getByLabel('Result of get_weather').fill('{"sky": "clear"}');
  await send.click();
  // The result is in the chat, and the answer that continues from it.
  await expect(page.locator('.turn.tool')).toContainText('{"sky": "clear"}');
  const answer = page.locator('.turn.assistant').nth(1);
  await expect(answer).toHaveAttribute('data-status', 'done');
  await expect(answer.locator('.answer')).toHaveText('Tool said: {"sky": "clear"}');
  await expect(page.getByLabel('Result of get_weather')).toHaveCount(0);
  // The request as code carries the call and its result.
  await chatAction(page, 'View as code');
  const code = page.locator('#pg-code-text');
  await expect(code).toContainText('"tool_calls": [');
  await expect(code).toContainText('"role": "tool"');
  await expect(code).toContainText('"name": "get_weather"');

  // Functions that are not a JSON array stop the send and say so.
  await page.getByLabel('Function definitions (JSON)').fill('{"name": "x"}');
  await expect(page.locator('#pg-tools-hint')).toContainText('not a JSON array');
  await page.getByLabel('Message').fill('hello');
  await expect(page.getByRole('button', { name: 'Send' })).toBeDisabled();
});
