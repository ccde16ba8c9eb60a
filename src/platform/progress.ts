/**
 * Partial text of a long answer, for a door that can stream it (the MCP facade's streaming tools
 * send it as progress notifications over server-sent events before the result). The door runs the
 * call inside withProgress(); a service asks progressReporter() for the current request's reporter
 * and sends its text as it is written. Without a streaming door there is no reporter, and the
 * service answers only at the end, exactly as before.
 *
 * It must never carry anything but text the answer itself contains (no state, no credentials), and
 * it knows no domain and no facade.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

/** Sends one piece of the answer's text as it is written. */
export type ProgressReporter = (text: string) => void;

const current = new AsyncLocalStorage<ProgressReporter>();

/** Runs `work` with `report` as the reporter of everything it awaits. */
export function withProgress<T>(report: ProgressReporter, work: () => T): T {
  return current.run(report, work);
}

/** The reporter of the running call, or undefined when its door does not stream. */
export function progressReporter(): ProgressReporter | undefined {
  return current.getStore();
}
