// Test build only: boots inpage like index.html does and puts real client libraries within reach of tests.
import OpenAI from 'openai';
import '../../src/page/main';

declare global {
  interface Window {
    clients: { OpenAI: typeof OpenAI };
  }
}

window.clients = { OpenAI };
