// A look inside web-llm's loaded pipeline for what its public interface does not offer: the tokenizer, the
// chat template in force and the image embedding size. These are private members of web-llm 0.2.86's
// MLCEngine and LLMChatPipeline, so every step is checked; if a release moves them, this returns null and the
// engine falls back to web-llm's own context check when it prefills (and its own prompt count).
import type { MLCEngineInterface } from '@mlc-ai/web-llm';
import type { LoadedModelView, ConvTemplate } from './prompt-tokens';

interface PipelineInternals {
  tokenizer?: { encode?(text: string): ArrayLike<number> };
  getConversationObject?(): { config?: ConvTemplate };
  computeImageEmbedSize?(height: number, width: number): number;
  config?: {
    model_type?: string;
    model_config?: { vision_start_token_id?: number; boi_token_index?: number; vision_end_token_id?: number; eoi_token_index?: number };
  };
}

export function inspectMLCEngine(engine: MLCEngineInterface, modelId: string): LoadedModelView | null {
  const pipelines = (engine as unknown as { loadedModelIdToPipeline?: unknown }).loadedModelIdToPipeline;
  if (!(pipelines instanceof Map)) return null;
  const pipeline = pipelines.get(modelId) as PipelineInternals | undefined;
  const tokenizer = pipeline?.tokenizer;
  const template = pipeline?.getConversationObject?.().config;
  if (!pipeline || typeof tokenizer?.encode !== 'function' || !template || !Array.isArray(template.seps)) return null;
  const modelConfig = pipeline.config?.model_config;
  const boi = modelConfig?.vision_start_token_id ?? modelConfig?.boi_token_index;
  const eoi = modelConfig?.vision_end_token_id ?? modelConfig?.eoi_token_index;
  const view: LoadedModelView = {
    countTokens: (text) => tokenizer.encode!(text).length,
    template,
    modelType: pipeline.config?.model_type ?? '',
    imageMarkerTokens: (boi !== undefined ? 1 : 0) + (eoi !== undefined ? 1 : 0),
  };
  if (typeof pipeline.computeImageEmbedSize === 'function') {
    view.imageTokens = ({ height, width }) => pipeline.computeImageEmbedSize!(height, width);
  }
  return view;
}
