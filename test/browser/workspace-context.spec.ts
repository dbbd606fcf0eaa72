// A chat never dead-ends, and nothing is lost (test build: the deterministic engine's context is 4,096 tokens, a
// token a word): the meter beside the composer, the default max_tokens that fits what is left, the choice when
// the next message would not fit (leave out the oldest turns, or a new chat with a summary), Continue after a
// `length` finish, a reload mid-answer that keeps every character that had arrived, and an attachment that comes
// back with the text after a failed send. On a desktop and on a phone.
import { expect, test, type Page } from '@playwright/test';
import { chatAction, goToArea, openChatSettings, openWorkspace, playgroundKey, registerThroughForm, screens, sendAndWait } from './workspace-steps';

/** A 1×1 PNG. */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');

async function startPlayground(page: Page, path = '/'): Promise<void> {
  await openWorkspace(page, path);
  await registerThroughForm(page);
  await goToArea(page, 'Playground');
  await playgroundKey(page);
}

/** The meter's figures: tokens used and the context. */
async function meter(page: Page): Promise<{ used: number; context: number; exact: boolean }> {
  const text = (await page.getByTestId('context-meter').textContent())!;
  const m = /(≈?)([\d,]+) \/ ([\d,]+) tokens of context/.exec(text);
  if (!m) throw new Error(`no figures in the meter: ${text}`);
  return { used: Number(m[2]!.replace(/,/g, '')), context: Number(m[3]!.replace(/,/g, '')), exact: m[1] === '' };
}

/** The words of an answer "1 2 3 … N" as numbers. */
async function numbers(answer: ReturnType<Page['locator']>): Promise<number[]> {
  return ((await answer.locator('.answer').textContent()) ?? '').trim().split(/\s+/).map(Number);
}

for (const device of [
  { name: 'desktop', viewport: { width: 1366, height: 900 } },
  { name: 'phone', viewport: { width: 390, height: 844 } },
]) {
  test.describe(device.name, () => {
    test.use({ viewport: device.viewport });

    test(`${device.name}: a chat past its context says so before sending, offers the choice, and continues after either`, async ({ page }) => {
      test.setTimeout(180_000);
      await startPlayground(page);
      const first = await sendAndWait(page, 'count 1500');
      // The meter counts from the answer's usage: its prompt and its 1,500 tokens, of this device's 4,096.
      const afterFirst = await meter(page);
      expect(afterFirst).toMatchObject({ context: 4096, exact: true });
      expect(afterFirst.used).toBeGreaterThan(1500);
      expect(afterFirst.used).toBeLessThan(1600);
      expect(await numbers(first)).toHaveLength(1500);

      // No max_tokens of the chat's own: the answer gets the room that is left, and ends at the length limit
      // instead of outgrowing the context.
      const second = await sendAndWait(page, 'count 3000');
      const got = (await numbers(second)).length;
      expect(got).toBeLessThan(3000);
      expect(afterFirst.used + got).toBeLessThanOrEqual(4096);
      await expect(second.getByTestId('stats')).toContainText('cut at the length limit');

      // The next message would not fit: said before sending, Send held back, nothing cut yet.
      await page.getByLabel('Message').fill('hello after all that');
      const full = page.getByTestId('context-full');
      await expect(full).toContainText('This message would not fit.');
      await expect(page.getByRole('button', { name: 'Send' })).toBeDisabled();
      await expect(page.locator('.turn.note')).toHaveCount(0);
      await screens(page, `${device.name}-context-full`, { screen: true });

      // Leave out the oldest turns: a note says so, the turns stay on screen, the message goes, the answer comes.
      await full.getByRole('button', { name: /^Leave out the oldest 2 turns$/ }).click();
      await expect(page.getByLabel('Message')).toBeFocused();
      await expect(page.locator('.turn.note')).toHaveText(/^The 2 turns above are no longer sent, to fit this device's context/);
      await expect(page.locator('.turn.user')).toHaveCount(2);
      await expect(full).toHaveCount(0);
      await page.getByRole('button', { name: 'Send' }).click();
      const third = page.locator('.turn.assistant').nth(2);
      await expect(third).toHaveAttribute('data-status', 'done');
      await expect(third.locator('.answer')).toHaveText('Echo: hello after all that');
      // Counted by the model: the 1,500 tokens left out are not in its prompt any more.
      const afterCut = await meter(page);
      expect(afterCut.exact).toBe(true);
      expect(afterCut.used).toBeLessThan(afterFirst.used + got - 1000);
      await chatAction(page, 'View as code');
      await expect(page.locator('.pg-code pre').first()).not.toContainText('count 1500');
      await expect(page.locator('.pg-code pre').first()).toContainText('count 3000');
      await chatAction(page, 'Hide code');

      // Full again: this time a new chat that starts from a summary the model writes.
      await sendAndWait(page, 'count 3000');
      await page.getByLabel('Message').fill('and now?');
      await expect(full).toBeVisible();
      await full.getByRole('button', { name: 'Continue in a new chat with a summary' }).click();
      await expect(page.getByTestId('chat-title')).toHaveText('count 1500 (continued)');
      await expect(page.getByLabel('Message')).toHaveValue('and now?');
      await expect(page.getByLabel('Message')).toBeFocused();
      await expect(page.locator('.turn.note')).toHaveText(/^Continued from “count 1500”: its summary is in this chat's system prompt/);
      await openChatSettings(page);
      // The test engine's "summary" is its echo of the request for one.
      await expect(page.getByLabel(/^System prompt/)).toHaveValue(/^Summary of the conversation so far:\nEcho: Summarise our conversation so far/);
      await page.getByRole('button', { name: 'Done' }).click();
      await page.getByRole('button', { name: 'Send' }).click();
      const fresh = page.locator('.turn.assistant').first();
      await expect(fresh).toHaveAttribute('data-status', 'done');
      await expect(fresh.locator('.answer')).toHaveText('Echo: and now?');
    });

    test(`${device.name}: Continue after a length finish adds to the answer`, async ({ page }) => {
      await startPlayground(page);
      await openChatSettings(page);
      await page.locator('.pg-params summary').click();
      await page.getByLabel('Max tokens').fill('5');
      await page.getByRole('button', { name: 'Done' }).click();
      const answer = await sendAndWait(page, 'count 20');
      await expect(answer.locator('.answer')).toHaveText('1 2 3 4 5');
      await expect(answer.getByTestId('stats')).toContainText('cut at the length limit');
      await answer.getByRole('button', { name: 'Continue the last answer' }).click();
      await expect(answer).toHaveAttribute('data-status', 'done');
      // The continuation (the test engine echoes what it was asked) is added to the same answer.
      await expect(answer.locator('.answer')).toHaveText(/^1 2 3 4 5 ?Echo: Continue exactly/);
      await expect(page.locator('.turn.assistant')).toHaveCount(1);
      await expect(page.locator('.turn.user')).toHaveCount(1);
    });

    test(`${device.name}: a reload mid-answer keeps every character that had arrived, as interrupted, with Continue and Regenerate`, async ({ page }) => {
      test.setTimeout(120_000);
      await startPlayground(page, '/?tokenDelayMs=25');
      await page.getByLabel('Message').fill('count 2000');
      await page.getByRole('button', { name: 'Send' }).click();
      const answer = page.locator('.turn.assistant').first();
      await expect(answer).toHaveAttribute('data-status', 'streaming');
      // Wait until a good part has arrived (at least 300 numbers), then read what is on screen and reload at once.
      await expect.poll(async () => (await numbers(answer)).length, { timeout: 60_000 }).toBeGreaterThanOrEqual(300);
      const seen = ((await answer.locator('.answer').textContent()) ?? '').trim();
      await page.reload();
      await page.evaluate(async () => {
        await window.inpageReady;
      });
      const kept = page.locator('.turn.assistant').first();
      await expect(kept).toHaveAttribute('data-status', 'interrupted');
      const text = ((await kept.locator('.answer').textContent()) ?? '').trim();
      // Everything that was on screen, and what arrived in the instant before the page went (never less).
      expect(text.startsWith(seen)).toBe(true);
      expect(text.length).toBeGreaterThanOrEqual(seen.length);
      await expect(kept.getByTestId('stats')).toHaveText('Interrupted by reload');
      await expect(kept.getByRole('button', { name: 'Regenerate the last answer' })).toBeVisible();
      await kept.getByRole('button', { name: 'Continue the last answer' }).click();
      await expect(kept).toHaveAttribute('data-status', 'done', { timeout: 60_000 });
      expect(((await kept.locator('.answer').textContent()) ?? '').startsWith(text)).toBe(true);
      await expect(kept.locator('.answer')).toContainText('Echo: Continue exactly');
    });

    test(`${device.name}: an attached image comes back with the text after a failed send`, async ({ page }) => {
      test.setTimeout(120_000);
      await startPlayground(page);
      await page.getByLabel('Model').selectOption('svc-vision');
      // An image just under the Playground's 8 MiB: one goes, but a second beside it in the history makes the
      // request larger than the service's 20 MiB, and that send fails before it begins (413).
      const big = (name: string) => ({ name, mimeType: 'image/png', buffer: Buffer.concat([PNG, Buffer.alloc(7.9 * 1024 * 1024 - PNG.length, 7)]) });
      await page.locator('#pg-image').setInputFiles(big('one.png'));
      const first = await sendAndWait(page, 'first picture');
      await expect(first.locator('.answer')).toHaveText('Echo: first picture [image]');
      await expect(page.getByRole('img', { name: /^Attached:/ })).toHaveCount(0);
      await page.locator('#pg-image').setInputFiles(big('two.png'));
      await page.getByLabel('Message').fill('second picture');
      await page.getByRole('button', { name: 'Send' }).click();
      await expect(page.locator('form.composer .notice-error')).toContainText('Not sent: The request body is larger than 20 MiB.', { timeout: 60_000 });
      await expect(page.getByLabel('Message')).toHaveValue('second picture');
      await expect(page.getByRole('img', { name: 'Attached: two.png' })).toBeVisible();
      await expect(page.locator('.turn.user')).toHaveCount(1);
    });
  });
}
