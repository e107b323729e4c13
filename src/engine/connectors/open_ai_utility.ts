// open_ai_utility (AI by Workato): analyse, categorise, draft, parse, summarise and translate text
// with the model connection (src/engine/agents/model.ts). Each action is one Chat Completions call
// with instructions of ours; inputs and outputs keep the vendor's internal names where they are
// known (`analyse_document`: `text`, `question`) and are the snake_case of the vendor's labels
// otherwise (P, src/engine/README.md).
import { StepError, type ActionDef, type Connector, type StepContext } from './types.ts';
import { fromPlain, hashGet, isHash, toRubyString, type Hash, type Value } from '../../recipe/formula/values.ts';
import { modelFor } from '../agents/model.ts';
import { ModelError, type ChatContent } from '../agents/model-client.ts';
import { parseFields } from '../../recipe/tool-schema.ts';

/** Text given to one AI step (the vendor's summarise limit is about 2,000 tokens; we allow more). */
const MAX_TEXT = 200_000;

function text(input: Hash, name: string, required = true): string {
  const value = hashGet(input, name);
  if (value === null || value === '') {
    if (required) throw new StepError('Bad request', `${name} can't be blank`);
    return '';
  }
  const s = typeof value === 'string' ? value : toRubyString(value);
  if (s.length > MAX_TEXT) throw new StepError('Bad request', `${name} is longer than ${MAX_TEXT} characters`);
  return s;
}

async function ask(sc: StepContext, system: string, user: ChatContent, maxTokens?: number): Promise<string> {
  const { chat } = await modelFor(sc);
  try {
    const answer = await chat({
      messages: [
        { role: 'system', content: system },
        { role: 'user', content: user },
      ],
      temperature: 0,
      ...(maxTokens ? { maxTokens } : {}),
    });
    const content = (answer.content ?? '').trim();
    if (content === '') throw new StepError('Model error', 'the model gave an empty answer');
    return content;
  } catch (error) {
    if (error instanceof ModelError)
      throw new StepError(error.kind === 'timeout' ? 'Timeout' : 'Model error', error.message);
    throw error;
  }
}

/** The first JSON object in a model's answer (models wrap JSON in prose or code fences). */
function jsonObjectIn(answer: string): Record<string, unknown> | null {
  const start = answer.indexOf('{');
  const end = answer.lastIndexOf('}');
  if (start < 0 || end <= start) return null;
  try {
    const value: unknown = JSON.parse(answer.slice(start, end + 1));
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}

const analyseDocument: ActionDef = {
  title: 'Analyze text',
  required: [
    { path: 'text', label: 'Source text' },
    { path: 'question', label: 'Instruction' },
  ],
  async run(input, sc) {
    const answer = await ask(
      sc,
      'Answer the instruction using only the source text. If the text holds no answer, reply with exactly: NO_ANSWER',
      `Source text:\n${text(input, 'text')}\n\nInstruction:\n${text(input, 'question')}`,
    );
    return fromPlain({ analysis_result: answer === 'NO_ANSWER' ? null : answer });
  },
};

const analyseImage: ActionDef = {
  title: 'Analyze image',
  required: [
    { path: 'image', label: 'Image' },
    { path: 'question', label: 'Instruction' },
  ],
  async run(input, sc) {
    const image = text(input, 'image');
    const url = /^(https?:|data:image\/)/i.test(image) ? image : `data:image/png;base64,${image}`;
    const answer = await ask(sc, 'Answer the instruction about the image.', [
      { type: 'text', text: text(input, 'question') },
      { type: 'image_url', image_url: { url } },
    ]);
    return fromPlain({ analysis_result: answer });
  },
};

const categoriseText: ActionDef = {
  title: 'Categorize text',
  required: [
    { path: 'text', label: 'Source text' },
    { path: 'categories', label: 'Categories' },
  ],
  async run(input, sc) {
    const raw = hashGet(input, 'categories');
    const list = Array.isArray(raw) ? raw : typeof raw === 'string' ? raw.split(',') : [];
    const categories = list
      .map((c: Value) => {
        if (isHash(c))
          return { key: toRubyString(hashGet(c, 'key')).trim(), rule: toRubyString(hashGet(c, 'rule')).trim() };
        return { key: toRubyString(c).trim(), rule: '' };
      })
      .filter((c) => c.key !== '');
    if (categories.length === 0 || categories.length > 100)
      throw new StepError('Bad request', 'categories must name 1 to 100 categories');
    const answer = await ask(
      sc,
      'Classify the text into exactly one of the categories. Reply with the category name only, or NONE if none fits.',
      `Categories:\n${categories.map((c) => `- ${c.key}${c.rule ? `: ${c.rule}` : ''}`).join('\n')}\n\nText:\n${text(input, 'text')}`,
    );
    const cleaned = answer.replace(/^["'`\s]+|["'`.\s]+$/g, '').toLowerCase();
    const match = categories.find((c) => c.key.toLowerCase() === cleaned);
    return fromPlain({ category: match ? match.key : null });
  },
};

const draftEmail: ActionDef = {
  title: 'Draft email',
  required: [{ path: 'email_description', label: 'Email description' }],
  async run(input, sc) {
    const answer = await ask(
      sc,
      'Draft an e-mail as described. Reply with a JSON object {"subject": "...", "body": "..."} and nothing else.',
      text(input, 'email_description'),
    );
    const parsed = jsonObjectIn(answer);
    if (!parsed) return fromPlain({ subject: '', body: answer });
    return fromPlain({
      subject: typeof parsed.subject === 'string' ? parsed.subject : '',
      body: typeof parsed.body === 'string' ? parsed.body : answer,
    });
  },
};

function parseText(): ActionDef {
  return {
    title: 'Parse text',
    required: [
      { path: 'text', label: 'Source text' },
      { path: 'fields', label: 'Fields' },
    ],
    async run(input, sc) {
      const fields = parseFields(hashGet(input, 'fields') === null ? null : fromPlainToJs(hashGet(input, 'fields')))
        .filter(
          (f): f is Record<string, unknown> =>
            typeof f === 'object' && f !== null && typeof (f as { name?: unknown }).name === 'string',
        )
        .slice(0, 200);
      if (fields.length === 0)
        throw new StepError('Bad request', 'fields must list the fields to extract, each with a name');
      const answer = await ask(
        sc,
        'Extract the fields from the text. Reply with one JSON object whose keys are the field names; use null for a field the text does not give.',
        `Fields:\n${fields
          .map(
            (f) =>
              `- ${String(f.name)} (${typeof f.type === 'string' ? f.type : 'string'})${typeof f.hint === 'string' ? `: ${f.hint}` : ''}`,
          )
          .join('\n')}\n\nText:\n${text(input, 'text')}`,
      );
      const parsed = jsonObjectIn(answer);
      if (!parsed) throw new StepError('Model error', 'the model did not answer a JSON object');
      return fromPlain(Object.fromEntries(fields.map((f) => [String(f.name), parsed[String(f.name)] ?? null])));
    },
  };
}

function fromPlainToJs(value: Value): unknown {
  return typeof value === 'string' ? value : JSON.parse(JSON.stringify(value));
}

const summarizeText: ActionDef = {
  title: 'Summarize text',
  required: [{ path: 'text', label: 'Source text' }],
  async run(input, sc) {
    const raw = hashGet(input, 'max_words');
    const words = raw === null || raw === '' ? 100 : Number(raw);
    if (!Number.isInteger(words) || words < 1 || words > 5000)
      throw new StepError('Bad request', 'max_words must be an integer from 1 to 5000');
    const answer = await ask(
      sc,
      `Summarize the text in at most ${words} words. Reply with the summary only.`,
      text(input, 'text'),
    );
    return fromPlain({ summary: answer });
  },
};

const translateText: ActionDef = {
  title: 'Translate text',
  required: [
    { path: 'text', label: 'Source text' },
    { path: 'to_language', label: 'Output language' },
  ],
  async run(input, sc) {
    const from = text(input, 'from_language', false);
    const answer = await ask(
      sc,
      `Translate the text${from ? ` from ${from}` : ''} into ${text(input, 'to_language')}. Reply with the translation only.`,
      text(input, 'text'),
    );
    return fromPlain({ translation: answer });
  },
};

export const openAiUtility: Connector = {
  provider: 'open_ai_utility',
  title: 'AI by Workato',
  needsConnection: false,
  reachesOutside: true,
  triggers: {},
  actions: {
    analyse_document: analyseDocument,
    analyse_image: analyseImage,
    categorise_text: categoriseText,
    draft_email: draftEmail,
    parse_text: parseText(),
    parse_text_v2: parseText(),
    summarize_text: summarizeText,
    translate_text: translateText,
  },
};
