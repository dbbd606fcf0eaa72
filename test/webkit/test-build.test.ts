// WebKit smoke set, test build, in Safari's engine (WebKitGTK's MiniBrowser): the shared steps
// (test/smoke/test-build-steps.ts), driven over classic WebDriver.
import assert from 'node:assert/strict';
import { testBuildSmoke } from '../smoke/test-build-steps';
import { SETUP_MS, createKeyThroughForm, openApp, registerThroughForm, webkit } from './webkit';

testBuildSmoke({
  name: 'WebKit (MiniBrowser)',
  word: 'webkit',
  port: 4184,
  timeoutMs: 300_000,
  setupMs: SETUP_MS,
  launch() {
    const browser = webkit();
    return async () => browser();
  },
  openApp,
  registerThroughForm,
  createKeyThroughForm,
  evaluator: (page) => page,
  async playground(page, model, text) {
    await page.click(await page.find('nav a[href="#playground"]'));
    await page.click(await page.findByText('button', 'Create a Playground key'));
    await page.textOnceMatching('[data-testid="pg-key"]', /^sk-svc-.{4}….{4}$/);
    await page.click(await page.find(`#pg-model option[value="${model}"]`));
    assert.equal(await page.evaluate(() => (document.querySelector('#pg-model') as HTMLSelectElement).value, null), model);
    await page.type(await page.find('#pg-message'), `${text}\uE007`);
    return page.textOnceMatching('.turn.assistant[data-status="done"] .answer', /\S/);
  },
});
