// Issue 48, the Playground: a person adds a remote MCP server (a real one, test/mcp/server.ts), sees its tools,
// turns it on for a chat, approves the call the answer asks for, sees its result, and finds it all after a reload.
// The app is the test build on an origin of its own (static-server.ts) whose /inpage.config.json allows the server.
import { readFile } from 'node:fs/promises';
import { expect, test, type Download, type Page } from '@playwright/test';
import { serveStatic, TEST_BUILD_DIR, type StaticServer } from './static-server';
import { MCP_TOKEN, startMcpServer, type McpTestServer } from '../mcp/server';
import { chatAction, goToArea, openChatSettings, openWorkspace, playgroundKey, registerThroughForm } from './workspace-steps';

test.describe.configure({ mode: 'serial' });

let app: StaticServer;
let mcp: McpTestServer;

test.beforeAll(async () => {
  app = await serveStatic(4798, { '/': TEST_BUILD_DIR });
  mcp = await startMcpServer(4799, app.origin);
  app.override('/inpage.config.json', JSON.stringify({ mcpServers: [`${mcp.origin}/mcp`] }));
});
test.afterAll(async () => {
  await mcp?.close();
  await app?.close();
});

async function startPlayground(page: Page): Promise<void> {
  await openWorkspace(page, `${app.origin}/`);
  await registerThroughForm(page);
  await goToArea(page, 'Playground');
  await playgroundKey(page);
  await openChatSettings(page);
}

async function addServer(page: Page, label: string, url: string, token = ''): Promise<void> {
  const section = page.locator('details.pg-mcp');
  if ((await section.getAttribute('open')) === null) await section.locator('summary').click();
  await page.getByLabel('Label', { exact: true }).fill(label);
  await page.getByLabel('Server URL').fill(url);
  if (token) await page.getByLabel('Token (optional)').fill(token);
  await page.getByRole('button', { name: 'Add server' }).click();
}

for (const device of [
  { name: 'desktop', viewport: { width: 1280, height: 900 } },
  { name: 'phone', viewport: { width: 390, height: 844 } },
]) {
  test(`${device.name}: add a server, see its tools, approve a call, see its result, reload: still there`, async ({ page }) => {
    await page.setViewportSize(device.viewport);
    const from = mcp.requests.length;
    await startPlayground(page);
    await addServer(page, 'test', mcp.url, MCP_TOKEN);
    const server = page.getByTestId('mcp-server');
    await expect(server.getByTestId('mcp-tools')).toHaveText('Tools: echo, slow, fail, large, whoami');
    // The token only in display form; on for this chat.
    await expect(server).toContainText(`token ${MCP_TOKEN.slice(0, 4)}…${MCP_TOKEN.slice(-4)}`);
    await expect(server).not.toContainText(MCP_TOKEN);
    await expect(server.getByRole('checkbox')).toBeChecked();
    await expect(page.locator('details.pg-mcp summary')).toHaveText('MCP servers (1 on)');
    await server.scrollIntoViewIfNeeded();
    await page.screenshot({ path: `/tmp/wt48b-${device.name}-settings.png`, fullPage: false });
    if (device.name === 'phone') await page.getByRole('button', { name: 'Done' }).click();

    await page.getByLabel('Message').fill('please echo');
    await page.getByRole('button', { name: 'Send' }).click();
    const answer = page.locator('.turn.assistant').first();
    await expect(answer).toHaveAttribute('data-status', 'done');
    await expect(answer.getByTestId('mcp-list-tools')).toHaveText('Tools of test: echo, slow, fail, large, whoami');
    const ask = answer.getByTestId('mcp-approval');
    await expect(ask).toContainText('Asks to call echo on test · waiting for you');
    await expect(ask.locator('.tool-call-args')).toHaveText('{"text":"a"}');
    await page.screenshot({ path: `/tmp/wt48b-${device.name}-ask.png`, fullPage: false });
    await ask.getByRole('button', { name: 'Approve' }).click();
    await expect(answer).toHaveAttribute('data-status', 'done');
    await expect(ask).toContainText('approved');
    await expect(ask.getByRole('button', { name: 'Approve' })).toHaveCount(0);
    const callCard = answer.getByTestId('mcp-call');
    await expect(callCard).toContainText('Calls echo on test · done');
    await expect(callCard.locator('.tool-result')).toHaveText('echo: a');
    await expect(answer.locator('.answer')).toHaveText('Tool said: echo: a');
    await page.screenshot({ path: `/tmp/wt48b-${device.name}-result.png`, fullPage: false });

    await page.reload();
    await page.evaluate(async () => {
      await window.inpageReady;
    });
    const again = page.locator('.turn.assistant').first();
    await expect(again.getByTestId('mcp-approval')).toContainText('Asks to call echo on test · approved');
    await expect(again.getByTestId('mcp-call').locator('.tool-result')).toHaveText('echo: a');
    await expect(again.locator('.answer')).toHaveText('Tool said: echo: a');
    // The token reached the server (whoami is not called here): every request the chat made carried it.
    const posts = mcp.requests.slice(from).filter((r) => r.method === 'POST');
    expect(posts.length).toBeGreaterThan(0);
    expect(posts.every((r) => r.authorization === `Bearer ${MCP_TOKEN}`)).toBe(true);
    // Nothing of the token in the chat as kept or exported.
    const kept = await page.evaluate(async () => {
      const open = indexedDB.open('inpage-conversations');
      const db = await new Promise<IDBDatabase>((resolve) => (open.onsuccess = () => resolve(open.result)));
      const all = db.transaction('conversations').objectStore('conversations').getAll();
      return JSON.stringify(await new Promise((resolve) => (all.onsuccess = () => resolve(all.result))));
    });
    expect(kept).toContain('echo: a');
    expect(kept).not.toContain(MCP_TOKEN);
  });
}

test('a server this deployment does not allow: said when its tools are listed and when a message is sent', async ({ page }) => {
  await startPlayground(page);
  await addServer(page, 'elsewhere', `${mcp.origin}/other`);
  const server = page.getByTestId('mcp-server');
  await expect(server.getByTestId('mcp-tools')).toContainText('This deployment does not allow the MCP server elsewhere');
  await expect(server.getByTestId('mcp-tools')).toContainText('mcpServers');
  await page.getByLabel('Message').fill('please echo');
  await page.getByRole('button', { name: 'Send' }).click();
  await expect(page.locator('form.composer')).toContainText('This deployment does not allow the MCP server elsewhere');
  await page.screenshot({ path: '/tmp/wt48b-desktop-not-allowed.png', fullPage: false });
  // The message is back in the composer; turned off, the chat answers as before (chat completions).
  await expect(page.getByLabel('Message')).toHaveValue('please echo');
  await server.getByRole('checkbox').uncheck();
  await page.getByRole('button', { name: 'Send' }).click();
  await expect(page.locator('.turn.assistant').first().locator('.answer')).toHaveText('Echo: please echo');
  expect(mcp.requests.filter((r) => r.path === '/other')).toEqual([]);
});

test('Deny: the call does not run; a server set to run without asking calls at once', async ({ page }) => {
  await startPlayground(page);
  await addServer(page, 'test', mcp.url);
  const server = page.getByTestId('mcp-server');
  await expect(server.getByTestId('mcp-tools')).toHaveText('Tools: echo, slow, fail, large, whoami');
  await expect(server).toContainText('no token');
  await page.getByLabel('Message').fill('please echo');
  await page.getByRole('button', { name: 'Send' }).click();
  const answer = page.locator('.turn.assistant').first();
  const ask = answer.getByTestId('mcp-approval');
  await ask.getByRole('button', { name: 'Deny' }).click();
  await expect(ask).toContainText('Asks to call echo on test · denied');
  await expect(answer).toHaveAttribute('data-status', 'done');
  await expect(answer.getByTestId('mcp-call')).toHaveCount(0);

  await server.getByLabel('Calls').selectOption('never');
  await page.getByLabel('Message').fill('please echo');
  await page.getByRole('button', { name: 'Send' }).click();
  const next = page.locator('.turn.assistant').nth(1);
  await expect(next).toHaveAttribute('data-status', 'done');
  await expect(next.getByTestId('mcp-approval')).toHaveCount(0);
  await expect(next.getByTestId('mcp-call').locator('.tool-result')).toHaveText('echo: a');
  await expect(next.locator('.answer')).toHaveText('Tool said: echo: a');
});

async function downloadedText(download: Download): Promise<string> {
  return readFile((await download.path())!, 'utf8');
}

/** The body the code view's fetch code sends (the JSON inside `JSON.stringify(…)`), parsed. */
function codeBody(code: string): Record<string, unknown> {
  const from = code.indexOf('JSON.stringify(') + 'JSON.stringify('.length;
  return JSON.parse(code.slice(from, code.indexOf('\n  }),', from) + 4)) as Record<string, unknown>;
}

test('View as code and Export JSON of an MCP chat: the /v1/responses request it sends, a placeholder for the token', async ({ page }) => {
  await startPlayground(page);
  await addServer(page, 'test', mcp.url, MCP_TOKEN);
  await expect(page.getByTestId('mcp-server').getByTestId('mcp-tools')).toHaveText('Tools: echo, slow, fail, large, whoami');
  const sent: Record<string, unknown>[] = [];
  page.on('request', (r) => void (r.method() === 'POST' && r.url().endsWith('/v1/responses') && sent.push(r.postDataJSON() as Record<string, unknown>)));
  await page.getByLabel('Message').fill('please echo');
  await chatAction(page, 'View as code');
  const code = page.locator('#pg-code-text');
  const fetchCode = (await code.textContent())!;
  expect(fetchCode).toContain(`fetch('${app.origin}/v1/responses'`);
  expect(fetchCode).toContain("data.type === 'response.output_text.delta'");
  expect(fetchCode).not.toContain(MCP_TOKEN);
  const tool = { type: 'mcp', server_label: 'test', server_url: mcp.url, require_approval: 'always', authorization: 'YOUR_MCP_TOKEN_FOR_test' };
  const shown = codeBody(fetchCode);
  expect(shown).toEqual({
    model: expect.any(String),
    input: [{ role: 'user', content: 'please echo' }],
    tools: [tool],
    stream: true,
    ...(shown.reasoning ? { reasoning: { effort: 'none' } } : {}),
  });
  await expect(page.locator('.pg-code .hint')).toContainText("each MCP server's token in place of YOUR_MCP_TOKEN_FOR_test");
  await page.getByRole('button', { name: 'openai SDK' }).click();
  const sdkCode = (await code.textContent())!;
  expect(sdkCode).toContain('await client.responses.create({');
  expect(sdkCode).toContain('"authorization": "YOUR_MCP_TOKEN_FOR_test"');
  expect(sdkCode).not.toContain(MCP_TOKEN);

  // What the send makes is what the code showed, but for the token.
  await page.getByRole('button', { name: 'Send' }).click();
  const answer = page.locator('.turn.assistant').first();
  await expect(answer).toHaveAttribute('data-status', 'done');
  await expect(answer.getByTestId('mcp-approval')).toContainText('waiting for you');
  expect(sent).toHaveLength(1);
  expect(sent[0]).toEqual({ ...shown, tools: [{ ...tool, authorization: MCP_TOKEN }] });

  const [exported] = await Promise.all([page.waitForEvent('download'), chatAction(page, 'Export JSON')]);
  const text = await downloadedText(exported);
  expect(text).not.toContain(MCP_TOKEN);
  const body = JSON.parse(text) as Record<string, unknown>;
  expect(body.messages).toBeUndefined();
  expect(body.input).toEqual([{ role: 'user', content: 'please echo' }]);
  expect(body.tools).toEqual([tool]);
  // It imports back: the messages become the chat's turns (the servers are this browser's, not the file's).
  await page.locator('#pg-import').setInputFiles({ name: 'chat.json', mimeType: 'application/json', buffer: Buffer.from(text) });
  await expect(page.locator('.pg-chats .chat-open')).toHaveCount(2);
  await expect(page.locator('.turn.user')).toHaveCount(1);
  await expect(page.locator('.turn.user').first()).toContainText('please echo');
});

test('two approval requests in one answer: both answered, then sent together (one request, two mcp_approval_response items)', async ({ page }) => {
  await startPlayground(page);
  await addServer(page, 'test', mcp.url);
  await expect(page.getByTestId('mcp-server').getByTestId('mcp-tools')).toHaveText('Tools: echo, slow, fail, large, whoami');
  const sent: Record<string, unknown>[] = [];
  page.on('request', (r) => void (r.method() === 'POST' && r.url().endsWith('/v1/responses') && sent.push(r.postDataJSON() as Record<string, unknown>)));
  await page.getByLabel('Message').fill('echo then whoami');
  await page.getByRole('button', { name: 'Send' }).click();
  const answer = page.locator('.turn.assistant').first();
  await expect(answer).toHaveAttribute('data-status', 'done');
  const asks = answer.getByTestId('mcp-approval');
  await expect(asks).toHaveCount(2);
  await expect(asks.nth(0)).toContainText('Asks to call echo on test · waiting for you');
  await expect(asks.nth(1)).toContainText('Asks to call whoami on test · waiting for you');
  const listed = sent.length;
  // The first choice waits for the second: nothing is sent yet, and it can still be changed.
  await asks.nth(0).getByRole('button', { name: 'Deny' }).click();
  await expect(asks.nth(0)).toContainText('denied, sent once every request here is answered');
  await asks.nth(0).getByRole('button', { name: 'Approve' }).click();
  await expect(asks.nth(0)).toContainText('approved, sent once every request here is answered');
  await expect(asks.nth(0).getByRole('button', { name: 'Approve' })).toHaveAttribute('aria-pressed', 'true');
  await expect(asks.nth(1)).toContainText('waiting for you');
  expect(sent.length).toBe(listed);
  await asks.nth(1).getByRole('button', { name: 'Deny' }).click();
  await expect(answer).toHaveAttribute('data-status', 'done');
  await expect(asks.nth(0)).toContainText('Asks to call echo on test · approved');
  await expect(asks.nth(1)).toContainText('Asks to call whoami on test · denied');
  await expect(answer.getByRole('button', { name: 'Approve' })).toHaveCount(0);
  const calls = answer.getByTestId('mcp-call');
  await expect(calls).toHaveCount(1);
  await expect(calls).toContainText('Calls echo on test · done');
  await expect(calls.locator('.tool-result')).toHaveText('echo: a');
  expect(sent.length).toBe(listed + 1);
  const input = sent.at(-1)!.input as { type: string; approval_request_id: string; approve: boolean }[];
  expect(input.map((i) => [i.type, i.approve])).toEqual([
    ['mcp_approval_response', true],
    ['mcp_approval_response', false],
  ]);
  expect(new Set(input.map((i) => i.approval_request_id)).size).toBe(2);
  expect(sent.at(-1)!.previous_response_id).toEqual(expect.stringMatching(/^resp_/));
});
