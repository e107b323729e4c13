// The error a step fails with: its class (the job's `error_parts.error_type`) and message.
/** A step failure with the class the job shows in `error_parts.error_type`. */
export class StepError extends Error {
  override name = 'StepError';
  readonly errorType: string;
  readonly innerMessage: string | null;
  constructor(errorType: string, message: string, innerMessage: string | null = null) {
    super(message);
    this.errorType = errorType;
    this.innerMessage = innerMessage;
  }
}
