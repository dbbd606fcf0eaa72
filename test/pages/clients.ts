// Test build only: boots inpage like index.html does and puts real client libraries within reach of tests.
import OpenAI from 'openai';
import { zodFunction, zodResponseFormat } from 'openai/helpers/zod';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { createOpenAI } from '@ai-sdk/openai';
import { generateObject, generateText, jsonSchema, stepCountIs, streamText, tool } from 'ai';
import { ChatOpenAI } from '@langchain/openai';
import { AIMessage, HumanMessage, ToolMessage } from '@langchain/core/messages';
import { tool as langchainTool } from '@langchain/core/tools';
import { z } from 'zod';
import { Agent, OpenAIResponsesModel, hostedMcpTool, run, setTracingDisabled } from '@openai/agents';
import '../../src/page/main';

const clients = {
  OpenAI,
  zodFunction,
  zodResponseFormat,
  createOpenAI,
  createOpenAICompatible,
  generateText,
  streamText,
  generateObject,
  stepCountIs,
  tool,
  jsonSchema,
  ChatOpenAI,
  AIMessage,
  HumanMessage,
  ToolMessage,
  langchainTool,
  z,
  // The OpenAI Agents SDK (remote MCP through hostedMcpTool): tracing off, so nothing is sent to OpenAI.
  agents: { Agent, OpenAIResponsesModel, hostedMcpTool, run, setTracingDisabled },
};

declare global {
  interface Window {
    clients: typeof clients;
  }
}

window.clients = clients;
