// What a job line keeps of a step's input and output: the JSON up to 100,000 characters each; a
// larger value is its size in the line (`{"truncated": true, "bytes": n}`) and whole beside it
// (`whole`, stored in job_line_values by run-job.ts), up to MAX_WHOLE_PER_JOB characters a job.
import { toPlain, type Value } from '../recipe/formula/values.ts';

const MAX_LINE_DATA = 100_000;
/** Most characters of large line values a job keeps whole; past it, only sizes. */
const MAX_WHOLE_PER_JOB = 50_000_000;

export interface LineData {
  input: string | null;
  output: string | null;
  whole?: { input?: string; output?: string };
}

/** One job's line data, counting the large values it keeps whole. */
export class LineValues {
  #wholeKept = 0;

  of(stepNumber: number, masked: boolean, input: Value | undefined, output: Value | undefined): LineData {
    const whole: { input?: string; output?: string } = {};
    const text = (field: 'input' | 'output', v: Value | undefined): string | null => {
      if (masked || v === undefined) return null;
      const json = JSON.stringify(toPlain(v)) ?? 'null';
      if (json.length <= MAX_LINE_DATA) return json;
      // The trigger's event is kept whole with the job (jobs.trigger_output) already.
      const kept = stepNumber === 0 && field === 'output';
      if (!kept && this.#wholeKept + json.length <= MAX_WHOLE_PER_JOB) {
        this.#wholeKept += json.length;
        whole[field] = json;
      }
      return JSON.stringify({ truncated: true, bytes: json.length });
    };
    const data: LineData = { input: text('input', input), output: text('output', output) };
    if (whole.input !== undefined || whole.output !== undefined) data.whole = whole;
    return data;
  }
}
