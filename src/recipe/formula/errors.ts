/** A formula failed while it ran (bad types, a method on nil, a budget exceeded): a step error. */
export class FormulaError extends Error {
  override name = 'FormulaError';
}
