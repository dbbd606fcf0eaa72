// Steps the workspace-page tests share: sign up through the form, move between areas, save screenshots.
import { expect, type Page } from '@playwright/test';
import { awaitReady } from './helpers';

/** Opens the workspace page and waits until the UI has read the workspace (sign-up form or areas). */
export async function openWorkspace(page: Page, path = '/'): Promise<void> {
  await page.goto(path);
  await awaitReady(page);
  await expect(page.getByText('Starting the local service…')).toHaveCount(0);
}

/** Signs up through the form; returns the organisation id the header shows. */
export async function registerThroughForm(page: Page, name = 'Test workspace'): Promise<string> {
  await page.getByLabel('Workspace name').fill(name);
  await page.getByRole('button', { name: 'Create workspace' }).click();
  const org = page.getByTestId('org-id');
  await expect(org).toHaveText(/^org-[a-z0-9]+$/);
  return (await org.textContent())!;
}

export async function goToArea(page: Page, label: 'API Keys' | 'Models' | 'Playground' | 'Connect'): Promise<void> {
  const link = page.getByRole('navigation', { name: 'Workspace' }).getByRole('link', { name: label });
  await link.click();
  await expect(link).toHaveAttribute('aria-current', 'page');
}

/** Where screenshots go; INPAGE_SCREENS_DIR moves them out of reach of other runs' clean-up of test-results/. */
const SCREENS_DIR = process.env.INPAGE_SCREENS_DIR ?? 'test-results/screens';

/**
 * Full-page screenshots in the light and the dark scheme: test-results/screens/<name>-{light,dark}.png.
 * `screen: true` takes the screen as the person sees it instead, for what opens over the page (a drawer, a
 * sheet): a full-page capture lays fixed and pinned parts out against the whole page, not the screen.
 */
export async function screens(page: Page, name: string, options: { screen?: boolean } = {}): Promise<void> {
  // At the end of the page the Playground's pinned composer sits where it belongs, over nothing.
  if (!options.screen) await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
  for (const colorScheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme });
    await page.screenshot({ path: `${SCREENS_DIR}/${name}-${colorScheme}.png`, fullPage: !options.screen, animations: 'disabled' });
  }
  await page.emulateMedia({ colorScheme: 'light' });
}

/** Creates a Playground key from the playground's own offer. */
export async function playgroundKey(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'Create a Playground key' }).click();
  await expect(page.getByTestId('pg-key')).toHaveText(/^sk-svc-.{4}….{4}$/);
}

/** Sends a message from the playground composer and waits for the answer to finish; returns the answer turn. */
export async function sendAndWait(page: Page, text: string) {
  const before = await page.locator('.turn.assistant').count();
  await page.getByLabel('Message').fill(text);
  await page.getByRole('button', { name: 'Send' }).click();
  const answer = page.locator('.turn.assistant').nth(before);
  await expect(answer).toHaveAttribute('data-status', 'done');
  return answer;
}

/** Opens the chat's settings (system prompt, parameters): a column beside the chat, a sheet on a phone. */
export async function openChatSettings(page: Page): Promise<void> {
  const button = page.getByRole('button', { name: /^Settings/ });
  if ((await button.getAttribute('aria-expanded')) !== 'true') await button.click();
  await expect(page.getByRole('complementary', { name: 'Chat settings' })).toBeVisible();
}

/** Presses one of the chat's actions in its "⋯" menu (View as code, Export JSON, Export Markdown). */
export async function chatAction(page: Page, name: string): Promise<void> {
  const menu = page.locator('details.pg-more');
  if ((await menu.getAttribute('open')) === null) await page.getByLabel('More chat actions').click();
  await menu.getByRole('button', { name, exact: true }).click();
}

/** Presses Tab (or Shift+Tab) until the focused element matches `selector`; fails after 60 presses. */
export async function tabTo(page: Page, selector: string, backward = false): Promise<void> {
  for (let i = 0; i < 60; i++) {
    if (await page.evaluate((sel) => document.activeElement?.matches(sel) ?? false, selector)) return;
    await page.keyboard.press(backward ? 'Shift+Tab' : 'Tab');
  }
  throw new Error(`Tab never reached ${selector}`);
}

/** Controls (buttons, fields, links, summaries) without an accessible name, as short HTML excerpts. */
export function unlabeledControls(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const nameOf = (el: Element): string => {
      const aria = el.getAttribute('aria-label');
      if (aria?.trim()) return aria.trim();
      const by = el.getAttribute('aria-labelledby');
      if (by)
        return by
          .split(/\s+/)
          .map((id) => document.getElementById(id)?.textContent ?? '')
          .join(' ')
          .trim();
      const labels = (el as HTMLInputElement).labels;
      if (labels && labels.length > 0)
        return Array.from(labels, (l) => l.textContent ?? '')
          .join(' ')
          .trim();
      if (['BUTTON', 'A', 'SUMMARY'].includes(el.tagName)) return el.textContent?.trim() ?? '';
      return '';
    };
    return Array.from(document.querySelectorAll('button, input, select, textarea, a[href], summary'))
      .filter((el) => !nameOf(el))
      .map((el) => el.outerHTML.slice(0, 160));
  });
}
