// The agent loop of a Genie: the model answers, or asks for tools (skills, each call a job of
// its recipe); their results go back to it; until it answers in text. Bounded in turns and in
// tokens; every turn is kept (what the model said, each tool call, its job and outcome, the
// tokens and the model's time) for the step's line.
import {
  estimateTokens,
  ModelError,
  type ChatAnswer,
  type ChatFn,
  type ChatMessage,
  type ToolSpec,
  type Usage,
} from './model-client.ts';
import type { JsonSchema } from '../../recipe/tool-schema.ts';

export interface AgentTool {
  name: string;
  description: string;
  parameters: JsonSchema;
  /** Runs the tool; throws an Error whose message the model sees. */
  call(args: Record<string, unknown>): Promise<{ result: unknown; jobId: string | null }>;
}

export interface AgentLimits {
  maxTurns: number;
  maxTokens: number;
}

export interface ToolCallRecord {
  id: string;
  name: string;
  arguments: unknown;
  job_id: string | null;
  ok: boolean;
  result?: unknown;
  error?: string;
}

export interface TurnRecord {
  turn: number;
  content: string | null;
  tool_calls: ToolCallRecord[];
  finish_reason: string | null;
  usage: Usage;
  model_ms: number;
}

export interface AgentOutcome {
  answer: string;
  turns: TurnRecord[];
  usage: Usage;
}

/** Why a run ended without an answer; the turns so far are kept for the job's line. */
export class AgentError extends Error {
  override name = 'AgentError';
  readonly errorType: string;
  readonly turns: TurnRecord[];
  constructor(errorType: string, message: string, turns: TurnRecord[]) {
    super(message);
    this.errorType = errorType;
    this.turns = turns;
  }
}

/** A tool result longer than this reaches the model cut (the job keeps it whole). */
const MAX_TOOL_TEXT = 50_000;
/** Tool calls one turn may ask for. */
const MAX_CALLS_PER_TURN = 16;

export async function runAgent(options: {
  chat: ChatFn;
  instructions: string;
  /** Earlier messages of the conversation (user and assistant turns). */
  conversation: Array<{ role: 'user' | 'assistant'; content: string }>;
  task: string;
  tools: AgentTool[];
  limits: AgentLimits;
  signal?: AbortSignal;
}): Promise<AgentOutcome> {
  const { chat, tools, limits } = options;
  const byName = new Map(tools.map((t) => [t.name, t]));
  const specs: ToolSpec[] = tools.map((t) => ({
    type: 'function',
    function: { name: t.name, description: t.description, parameters: t.parameters },
  }));
  const messages: ChatMessage[] = [];
  if (options.instructions.trim() !== '') messages.push({ role: 'system', content: options.instructions });
  for (const m of options.conversation) messages.push({ role: m.role, content: m.content });
  messages.push({ role: 'user', content: options.task });
  const turns: TurnRecord[] = [];
  const total: Usage = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };

  for (let turn = 1; turn <= limits.maxTurns; turn++) {
    const remaining = limits.maxTokens - total.total_tokens;
    let answer: ChatAnswer;
    try {
      answer = await chat({
        messages,
        ...(specs.length > 0 ? { tools: specs } : {}),
        maxTokens: Math.max(1, remaining),
        ...(options.signal ? { signal: options.signal } : {}),
      });
    } catch (error) {
      if (error instanceof ModelError)
        throw new AgentError(error.kind === 'timeout' ? 'Timeout' : 'Model error', error.message, turns);
      throw error;
    }
    const usage = answer.usage ?? {
      prompt_tokens: estimateTokens(JSON.stringify(messages)),
      completion_tokens: estimateTokens((answer.content ?? '') + JSON.stringify(answer.toolCalls)),
      total_tokens: 0,
    };
    if (usage.total_tokens === 0) usage.total_tokens = usage.prompt_tokens + usage.completion_tokens;
    total.prompt_tokens += usage.prompt_tokens;
    total.completion_tokens += usage.completion_tokens;
    total.total_tokens += usage.total_tokens;
    const record: TurnRecord = {
      turn,
      content: answer.content,
      tool_calls: [],
      finish_reason: answer.finishReason,
      usage,
      model_ms: Math.round(answer.ms * 1000) / 1000,
    };
    turns.push(record);
    if (total.total_tokens > limits.maxTokens)
      throw new AgentError(
        'Token budget exceeded',
        `the agent used ${total.total_tokens} tokens, more than its budget of ${limits.maxTokens}`,
        turns,
      );

    if (answer.toolCalls.length === 0) {
      const text = (answer.content ?? '').trim();
      if (text === '') throw new AgentError('Model error', 'the model answered neither text nor a tool call', turns);
      return { answer: text, turns, usage: total };
    }
    if (answer.toolCalls.length > MAX_CALLS_PER_TURN)
      throw new AgentError(
        'Model error',
        `the model asked for ${answer.toolCalls.length} tool calls in one turn (at most ${MAX_CALLS_PER_TURN})`,
        turns,
      );

    messages.push({ role: 'assistant', content: answer.content, tool_calls: answer.toolCalls });
    // The calls of one turn run one after another: each is a job, and their order is the model's.
    for (const call of answer.toolCalls) {
      const entry: ToolCallRecord = {
        id: call.id,
        name: call.function.name,
        arguments: call.function.arguments,
        job_id: null,
        ok: false,
      };
      record.tool_calls.push(entry);
      let reply: string;
      const tool = byName.get(call.function.name);
      const args = parseArguments(call.function.arguments);
      if (!tool) {
        entry.error = `unknown tool "${call.function.name.slice(0, 100)}"`;
        reply = `Error: there is no tool named "${call.function.name.slice(0, 100)}". Available tools: ${
          tools.map((t) => t.name).join(', ') || 'none'
        }.`;
      } else if (args === null) {
        entry.error = 'the arguments are not a JSON object';
        reply = 'Error: the arguments of this call must be a JSON object.';
      } else {
        entry.arguments = args;
        try {
          const outcome = await tool.call(args);
          entry.ok = true;
          entry.job_id = outcome.jobId;
          entry.result = outcome.result;
          reply = JSON.stringify(outcome.result ?? null);
        } catch (error) {
          const jobId = (error as { jobId?: unknown }).jobId;
          if (typeof jobId === 'string') entry.job_id = jobId;
          entry.error = (error as Error).message;
          reply = `Error: ${(error as Error).message}`;
        }
      }
      messages.push({ role: 'tool', tool_call_id: call.id, content: reply.slice(0, MAX_TOOL_TEXT) });
    }
  }
  throw new AgentError('Turn limit exceeded', `the agent did not answer within ${limits.maxTurns} turns`, turns);
}

function parseArguments(text: string): Record<string, unknown> | null {
  if (text.trim() === '') return {};
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}
