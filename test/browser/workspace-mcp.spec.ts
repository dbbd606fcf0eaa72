// Issue 48, the Playground: a person adds a remote MCP server (a real one, test/mcp/server.ts), sees its tools,
// turns it on for a chat, approves the call the answer asks for, sees its result, and finds it all after a reload.
// The app is the test build on an origin of its own (static-server.ts) whose /inpage.config.json allows the server.
import { expect, test, type Page } from '@playwright/test';
import { serveStatic, TEST_BUILD_DIR, type StaticServer } from './static-server';
import { MCP_TOKEN, startMcpServer, type McpTestServer } from '../mcp/server';
import { goToArea, openChatSettings, openWorkspace, playgroundKey, registerThroughForm } from './workspace-steps';

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
