/**
 * What a relative has chosen to show the other side of an accepted link (issue 35,
 * dna_family_update): their continental ancestry (from their newest ancestry estimate) and their
 * maternal and paternal haplogroups (read from their genome now). Only the haplogroup names and
 * the ancestry shares leave: never a genotype, never a variant list.
 *
 * NOTE: the caller checks the link and the relative's choices; this reads whom it is told to.
 */
import type { AuthedContext } from '../../graphql/context.ts';
import type { AncestryProportion } from './dna.ancestry.ts';
import { openGenome } from './dna.genome.ts';
import { mtHaplogroup, mtObservations, yHaplogroup } from './dna.haplogroups.ts';
import { latestResult } from './dna.reports.ts';
import type { AncestryResult } from './dna.reports.ts';
import { genomeDeps } from './dna.upload.ts';

/** What one side lets the other see beyond relatedness. */
export interface DnaShares {
  /** continental ancestry proportions */
  ancestry: boolean;
  /** maternal and paternal haplogroups */
  haplogroups: boolean;
}

/** A relative's shared findings; a field is null when not shared or not known. */
export interface SharedFindings {
  ancestry: AncestryProportion[] | null;
  maternalHaplogroup: string | null;
  paternalHaplogroup: string | null;
  /** what is shown and why something is missing */
  note: string;
}

/** The findings person `userId` shares under `shares` (null when they share nothing). */
export async function sharedFindings(
  ctx: AuthedContext,
  userId: number,
  shares: DnaShares,
): Promise<SharedFindings | null> {
  if (!shares.ancestry && !shares.haplogroups) return null;
  const notes: string[] = [];
  let ancestry: AncestryProportion[] | null = null;
  if (shares.ancestry) {
    const done = await latestResult<AncestryResult>(ctx, userId, 'ancestry');
    if (done?.ancestry.status === 'estimated') ancestry = done.ancestry.proportions;
    else notes.push('They share their ancestry, but have no ancestry estimate yet.');
  }
  let maternal: string | null = null;
  let paternal: string | null = null;
  if (shares.haplogroups) {
    const genome = await openGenome(genomeDeps(ctx), userId);
    if (genome) {
      // issue 46: the supported haplogroup (called or partial), never an uncorroborated best fit
      maternal = mtHaplogroup(mtObservations(genome.calls.markers('MT'))).deepestSupported;
      const y = yHaplogroup(genome.calls, genome.view.sex);
      paternal = y.clade;
      if (y.status === 'no_y_data') notes.push('No paternal haplogroup: their file has no Y data.');
    } else notes.push('They share their haplogroups, but have no DNA file.');
  }
  return {
    ancestry,
    maternalHaplogroup: maternal,
    paternalHaplogroup: paternal,
    note: notes.join(' ') || 'Shared by them with you.',
  };
}
