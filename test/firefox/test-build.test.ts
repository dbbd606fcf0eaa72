// Firefox smoke set, test build: the shared steps (test/smoke/test-build-steps.ts), driven through Puppeteer over
// WebDriver BiDi.
import { testBuildSmoke } from '../smoke/test-build-steps';
import { SETUP_MS, createKeyThroughForm, evaluator, firefox, newPage, openApp, registerThroughForm, textOnceMatching } from './firefox';

testBuildSmoke({
  name: 'Firefox ESR',
  word: 'firefox',
  port: 4180,
  timeoutMs: 240_000,
  setupMs: SETUP_MS,
  launch() {
    const browser = firefox();
    return () => newPage(browser());
  },
  openApp,
  registerThroughForm,
  createKeyThroughForm,
  evaluator,
  async playground(page, model, text) {
    await page.locator('nav a[href="#playground"]').click();
    await page.locator('button::-p-text("Create a Playground key")').click();
    await textOnceMatching(page, '[data-testid="pg-key"]', /^sk-svc-.{4}….{4}$/);
    await page.locator('#pg-model').wait();
    await page.select('#pg-model', model);
    await page.locator('#pg-message').fill(text);
    await page.keyboard.press('Enter');
    return textOnceMatching(page, '.turn.assistant[data-status="done"] .answer', /\S/);
  },
});
