/**
 * Steps other domains add to account deletion: each runs in every sweep's transaction, before the
 * person's rows go (challenges count the person as "a former member"; community ends the circles
 * only they were in). A domain above account registers its step from its own module, so that
 * account never imports a domain that (through its own imports) sits above it.
 */
import type { DbTx } from '../../db/client.ts';

/** One domain's step: what to keep or end before the person's rows are deleted. */
export type AccountDeletionStep = (tx: DbTx, userId: number) => Promise<void>;

const steps: { name: string; run: AccountDeletionStep }[] = [];

/** Adds a domain's step (once per name: a module loaded twice registers once). */
export function onAccountDeletion(name: string, run: AccountDeletionStep): void {
  if (!steps.some((s) => s.name === name)) steps.push({ name, run });
}

/** Runs every registered step, in registration order. */
export async function runAccountDeletionSteps(tx: DbTx, userId: number): Promise<void> {
  for (const step of steps) await step.run(tx, userId);
}

/** The names of the registered steps (tests check that a domain's step is in place). */
export function accountDeletionSteps(): string[] {
  return steps.map((s) => s.name);
}
