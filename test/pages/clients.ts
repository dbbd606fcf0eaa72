// Test build only: boots inpage like index.html does and puts real client libraries within reach of tests.
import OpenAI from 'openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { createOpenAI } from '@ai-sdk/openai';
import { generateText, streamText } from 'ai';
import { ChatOpenAI } from '@langchain/openai';
import '../../src/page/main';

const clients = { OpenAI, createOpenAI, createOpenAICompatible, generateText, streamText, ChatOpenAI };

declare global {
  interface Window {
    clients: typeof clients;
  }
}

window.clients = clients;
