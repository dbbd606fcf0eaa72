// Checks answers against OpenAI's published schemas (test/fixtures/openai-schemas.json).
import { expect } from '@playwright/test';
import { Ajv } from 'ajv';
import schemas from '../fixtures/openai-schemas.json' with { type: 'json' };

export type SchemaName =
  | 'CreateChatCompletionResponse'
  | 'CreateChatCompletionStreamResponse'
  | 'ListModelsResponse'
  | 'Model'
  | 'ErrorResponse'
  | 'Response'
  | 'ResponseStreamEvent'
  | 'ResponseItemList'
  | 'CreateCompletionResponse'
  | 'CreateEmbeddingResponse';

const ajv = new Ajv({ allErrors: true, strict: false });
ajv.addSchema(schemas);

export function expectSchema(name: SchemaName, value: unknown): void {
  const validate = ajv.getSchema(`openai#/definitions/${name}`);
  if (!validate) throw new Error(`No schema ${name}`);
  const valid = validate(value);
  expect(valid, `${name}: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(value)}`).toBe(true);
}
