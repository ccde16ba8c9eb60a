/** One validation issue in the documented FastAPI shape (a 422 answer's `detail[]`). */
export interface ValidationIssue {
  /** where: ['body', 'samples', 0, 'metric_type'], ['query', 'limit'], or a variable path */
  loc: (string | number)[];
  msg: string;
  /** Pydantic's error type, e.g. missing, greater_than_equal, string_too_long */
  type: string;
}
