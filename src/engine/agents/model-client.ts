// A client of the OpenAI-compatible Chat Completions API (POST <base_url>/chat/completions), the
// one kind of model connection: OpenAI itself, Ollama, llama.cpp's server, vLLM, LM Studio...
// It asks for a stream and reads either form of answer (a server that ignores `stream` sends one
// JSON body), bounded in time and size, and assembles text and tool calls from the deltas.
import type { Dispatcher } from 'undici';
import type { JsonSchema } from '../../recipe/tool-schema.ts';
import { undici } from '../../outbound/undici.ts';

export interface ModelSettings {
  /** e.g. http://127.0.0.1:11434/v1 (Ollama), https://api.openai.com/v1 */
  baseUrl: URL;
  apiKey: string | null;
  model: string;
  timeoutMs: number;
  maxResponseBytes: number;
  /** The server's outbound policy (src/outbound/): the model's address is checked as every request made for a user. */
  outbound?: { dispatcher: Dispatcher; checkUrl(url: URL): void };
}

export interface ToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export type ChatContent =
  string | Array<{ type: 'text'; text: string } | { type: 'image_url'; image_url: { url: string } }>;

export type ChatMessage =
  | { role: 'system' | 'user'; content: ChatContent }
  | { role: 'assistant'; content: string | null; tool_calls?: ToolCall[] }
  | { role: 'tool'; tool_call_id: string; content: string };

export interface ToolSpec {
  type: 'function';
  function: { name: string; description: string; parameters: JsonSchema };
}

export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

export interface ChatAnswer {
  content: string | null;
  toolCalls: ToolCall[];
  finishReason: string | null;
  /** As the server reported it; null when it reported none. */
  usage: Usage | null;
  /** Time from the request to the last byte of the answer. */
  ms: number;
}

export type ModelErrorKind = 'timeout' | 'unreachable' | 'http' | 'malformed' | 'too_large';

/** A model call that failed; the message never holds the key. */
export class ModelError extends Error {
  override name = 'ModelError';
  readonly kind: ModelErrorKind;
  constructor(kind: ModelErrorKind, message: string) {
    super(message);
    this.kind = kind;
  }
}

export interface ChatRequest {
  messages: ChatMessage[];
  tools?: ToolSpec[];
  maxTokens?: number;
  temperature?: number;
  /** Aborts the call (the server's shutdown). */
  signal?: AbortSignal;
}

export type ChatFn = (request: ChatRequest) => Promise<ChatAnswer>;

export function chatClient(settings: ModelSettings): ChatFn {
  const url = new URL(settings.baseUrl.href.replace(/\/+$/, '') + '/chat/completions');
  return (request) => chatCompletion(settings, url, request);
}

async function chatCompletion(settings: ModelSettings, url: URL, request: ChatRequest): Promise<ChatAnswer> {
  const started = performance.now();
  const timeout = AbortSignal.timeout(settings.timeoutMs);
  const signal = request.signal ? AbortSignal.any([timeout, request.signal]) : timeout;
  const body: Record<string, unknown> = {
    model: settings.model,
    messages: request.messages,
    stream: true,
    stream_options: { include_usage: true },
  };
  if (request.tools && request.tools.length > 0) {
    body.tools = request.tools;
    body.tool_choice = 'auto';
  }
  if (request.maxTokens !== undefined) body.max_tokens = request.maxTokens;
  if (request.temperature !== undefined) body.temperature = request.temperature;
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'text/event-stream, application/json',
  };
  if (settings.apiKey) headers.authorization = `Bearer ${settings.apiKey}`;
  let response: Response;
  try {
    if (settings.outbound) {
      try {
        settings.outbound.checkUrl(url);
      } catch (error) {
        throw new ModelError('unreachable', (error as Error).message);
      }
    }
    const init = { method: 'POST', headers, body: JSON.stringify(body), signal, redirect: 'error' as const };
    response = settings.outbound
      ? ((await undici().fetch(url, { ...init, dispatcher: settings.outbound.dispatcher })) as unknown as Response)
      : await fetch(url, init);
  } catch (error) {
    if (error instanceof ModelError) throw error;
    throw failure(error, settings, timeout);
  }
  let text: string;
  try {
    text = await readBounded(response, settings.maxResponseBytes);
  } catch (error) {
    if (error instanceof ModelError) throw error;
    throw failure(error, settings, timeout);
  }
  if (!response.ok) throw new ModelError('http', `the model answered HTTP ${response.status}${errorText(text)}`);
  const type = (response.headers.get('content-type') ?? '').toLowerCase();
  const answer = type.includes('text/event-stream') ? fromStream(text) : fromJson(text);
  return { ...answer, ms: performance.now() - started };
}

function failure(error: unknown, settings: ModelSettings, timeout: AbortSignal): ModelError {
  if (timeout.aborted) return new ModelError('timeout', `the model did not answer within ${settings.timeoutMs} ms`);
  if ((error as Error)?.name === 'AbortError') return new ModelError('timeout', 'the model call was interrupted');
  const cause = (error as { cause?: { code?: string } })?.cause?.code;
  return new ModelError(
    'unreachable',
    `the model at ${settings.baseUrl.origin} cannot be reached${cause ? ` (${cause})` : ''}`,
  );
}

async function readBounded(response: Response, max: number): Promise<string> {
  if (!response.body) return '';
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of response.body) {
    size += chunk.byteLength;
    if (size > max) {
      await response.body.cancel().catch(() => undefined);
      throw new ModelError('too_large', `the model's answer is larger than ${max} bytes`);
    }
    chunks.push(Buffer.from(chunk));
  }
  return Buffer.concat(chunks).toString('utf8');
}

function errorText(text: string): string {
  try {
    const parsed = JSON.parse(text) as { error?: { message?: unknown } | string; message?: unknown };
    const message =
      typeof parsed.error === 'string'
        ? parsed.error
        : typeof parsed.error?.message === 'string'
          ? parsed.error.message
          : typeof parsed.message === 'string'
            ? parsed.message
            : null;
    return message ? `: ${message.slice(0, 300)}` : '';
  } catch {
    return '';
  }
}

type Parsed = Omit<ChatAnswer, 'ms'>;

function fromJson(text: string): Parsed {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new ModelError('malformed', 'the model answered something that is not Chat Completions JSON');
  }
  const choice = firstChoice(parsed);
  const message = choice?.message;
  if (typeof message !== 'object' || message === null)
    throw new ModelError('malformed', 'the model answered without choices[0].message');
  const m = message as { content?: unknown; tool_calls?: unknown };
  return {
    content: typeof m.content === 'string' ? m.content : null,
    toolCalls: toolCallsOf(m.tool_calls),
    finishReason: typeof choice?.finish_reason === 'string' ? choice.finish_reason : null,
    usage: usageOf((parsed as { usage?: unknown }).usage),
  };
}

function firstChoice(parsed: unknown): { message?: unknown; delta?: unknown; finish_reason?: unknown } | undefined {
  if (typeof parsed !== 'object' || parsed === null) return undefined;
  const choices = (parsed as { choices?: unknown }).choices;
  if (!Array.isArray(choices)) return undefined;
  const first: unknown = choices[0];
  return typeof first === 'object' && first !== null ? (first as Record<string, unknown>) : undefined;
}

function fromStream(text: string): Parsed {
  let content: string | null = null;
  let finishReason: string | null = null;
  let usage: Usage | null = null;
  let sawChunk = false;
  const calls: Array<{ id: string; name: string; arguments: string }> = [];
  for (const line of text.split('\n')) {
    if (!line.startsWith('data:')) continue;
    const data = line.slice(5).trim();
    if (data === '' || data === '[DONE]') continue;
    let chunk: unknown;
    try {
      chunk = JSON.parse(data);
    } catch {
      throw new ModelError('malformed', 'the model streamed a chunk that is not JSON');
    }
    sawChunk = true;
    usage = usageOf((chunk as { usage?: unknown }).usage) ?? usage;
    const choice = firstChoice(chunk);
    if (!choice) continue;
    if (typeof choice.finish_reason === 'string') finishReason = choice.finish_reason;
    const delta = choice.delta as { content?: unknown; tool_calls?: unknown } | undefined;
    if (!delta || typeof delta !== 'object') continue;
    if (typeof delta.content === 'string') content = (content ?? '') + delta.content;
    if (Array.isArray(delta.tool_calls)) {
      for (const part of delta.tool_calls as Array<Record<string, unknown>>) {
        const index = typeof part?.index === 'number' && part.index >= 0 && part.index < 64 ? part.index : calls.length;
        const call = (calls[index] ??= { id: '', name: '', arguments: '' });
        if (typeof part.id === 'string') call.id = part.id;
        const fn = part.function as { name?: unknown; arguments?: unknown } | undefined;
        if (typeof fn?.name === 'string') call.name += fn.name;
        if (typeof fn?.arguments === 'string') call.arguments += fn.arguments;
      }
    }
  }
  if (!sawChunk) throw new ModelError('malformed', 'the model streamed no Chat Completions chunk');
  return {
    content,
    toolCalls: calls
      .filter((c) => c !== undefined)
      .map((c, i) => ({
        id: c.id || `call_${i}`,
        type: 'function' as const,
        function: { name: c.name, arguments: c.arguments },
      })),
    finishReason,
    usage,
  };
}

function toolCallsOf(value: unknown): ToolCall[] {
  if (!Array.isArray(value)) return [];
  return value.slice(0, 64).map((raw: unknown, i) => {
    const c = (typeof raw === 'object' && raw !== null ? raw : {}) as { id?: unknown; function?: unknown };
    const fn = (typeof c.function === 'object' && c.function !== null ? c.function : {}) as {
      name?: unknown;
      arguments?: unknown;
    };
    return {
      id: typeof c.id === 'string' && c.id !== '' ? c.id : `call_${i}`,
      type: 'function' as const,
      function: {
        name: typeof fn.name === 'string' ? fn.name : '',
        arguments:
          typeof fn.arguments === 'string'
            ? fn.arguments
            : fn.arguments === undefined
              ? ''
              : JSON.stringify(fn.arguments),
      },
    };
  });
}

function usageOf(value: unknown): Usage | null {
  if (typeof value !== 'object' || value === null) return null;
  const u = value as Record<string, unknown>;
  const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? Math.floor(v) : 0);
  const prompt = num(u.prompt_tokens);
  const completion = num(u.completion_tokens);
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: num(u.total_tokens) || prompt + completion,
  };
}

/** A rough count where the server reports none: four characters a token. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}
